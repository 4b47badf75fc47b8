"""Connection settings for the optional engines, from the same environment variables that
profiles.yml reads, so the loader, the parity check and dbt always meet the same server."""

from __future__ import annotations

import os
import sys


def postgres_settings() -> dict:
    return {
        "host": os.environ.get("RUNLENS_PG_HOST", "127.0.0.1"),
        "port": int(os.environ.get("RUNLENS_PG_PORT", "5432")),
        "user": os.environ.get("RUNLENS_PG_USER", "runlens"),
        "password": os.environ.get("RUNLENS_PG_PASSWORD", ""),
        "dbname": os.environ.get("RUNLENS_PG_DATABASE", "runlens"),
        "schema": os.environ.get("RUNLENS_PG_SCHEMA", "runlens"),
    }


def postgres_connection(settings: dict):
    """A psycopg2 connection, or None after a one-line message saying what to do."""
    try:
        import psycopg2
    except ImportError:
        print("runlens: PostgreSQL support is not installed: pip install -r requirements-engines.txt", file=sys.stderr)
        return None
    try:
        return psycopg2.connect(
            host=settings["host"],
            port=settings["port"],
            user=settings["user"],
            password=settings["password"],
            dbname=settings["dbname"],
            connect_timeout=10,
        )
    except psycopg2.OperationalError as error:
        reason = str(error).strip().splitlines()[0]
        print(
            f"runlens: cannot connect to PostgreSQL at {settings['host']}:{settings['port']} "
            f"({reason}): set RUNLENS_PG_HOST / RUNLENS_PG_PORT / RUNLENS_PG_USER / RUNLENS_PG_DATABASE",
            file=sys.stderr,
        )
        return None
