"""Connection settings for the optional engines, from the same environment variables that
profiles.yml reads, so the loader, the parity check and dbt always meet the same server."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class PostgresSettings:
    """How to reach the PostgreSQL database, and the schema of the marts."""

    host: str = "127.0.0.1"
    port: int = 5432
    user: str = "runlens"
    password: str = ""
    dbname: str = "runlens"
    schema: str = "runlens"


def postgres_settings(schema: str | None = None) -> PostgresSettings:
    """The settings RUNLENS_PG_* give (profiles.yml's defaults), with another schema if given."""
    port = os.environ.get("RUNLENS_PG_PORT", "5432")
    if not port.isdigit():
        raise ValueError(f"RUNLENS_PG_PORT must be a port number, not {port!r}")
    settings = PostgresSettings(
        host=os.environ.get("RUNLENS_PG_HOST", "127.0.0.1"),
        port=int(port),
        user=os.environ.get("RUNLENS_PG_USER", "runlens"),
        password=os.environ.get("RUNLENS_PG_PASSWORD", ""),
        dbname=os.environ.get("RUNLENS_PG_DATABASE", "runlens"),
        schema=os.environ.get("RUNLENS_PG_SCHEMA", "runlens"),
    )
    return settings if schema is None else replace(settings, schema=schema)


def postgres_connection(settings: PostgresSettings):
    """A psycopg2 connection, or None after a one-line message saying what to do."""
    try:
        import psycopg2
    except ImportError:
        print("runlens: PostgreSQL support is not installed: pip install -r requirements-engines.txt", file=sys.stderr)
        return None
    try:
        return psycopg2.connect(
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            dbname=settings.dbname,
            connect_timeout=10,
        )
    except psycopg2.OperationalError as error:
        reason = str(error).strip().splitlines()[0]
        print(
            f"runlens: cannot connect to PostgreSQL at {settings.host}:{settings.port} "
            f"({reason}): set RUNLENS_PG_HOST / RUNLENS_PG_PORT / RUNLENS_PG_USER / RUNLENS_PG_DATABASE",
            file=sys.stderr,
        )
        return None
