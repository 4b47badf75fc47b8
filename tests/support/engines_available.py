"""Whether PostgreSQL and Spark can be used: a test that needs a missing one skips, saying why, or
fails under RUNLENS_REQUIRE_ENGINES=1 (which .ci/run sets)."""

from __future__ import annotations

import os
import shutil

import pytest

from scripts.engines.connections import postgres_connection, postgres_settings

REQUIRED = os.environ.get("RUNLENS_REQUIRE_ENGINES") == "1"


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"engine required by RUNLENS_REQUIRE_ENGINES=1 but unavailable: {reason}")
    pytest.skip(reason)


def postgres_missing() -> str | None:
    """Why PostgreSQL cannot be used, or None."""
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "psycopg2 not installed (requirements-engines.txt)"
    connection = postgres_connection(postgres_settings())
    if connection is None:
        return "no PostgreSQL server at RUNLENS_PG_HOST:RUNLENS_PG_PORT (scripts/ci/postgres.sh start)"
    connection.close()
    return None


def spark_missing() -> str | None:
    """Why Spark cannot be used, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark not installed (requirements-engines.txt)"
    if shutil.which("java") is None:
        return "no java on PATH (Spark needs Java 17)"
    return None


def require_postgres() -> None:
    reason = postgres_missing()
    if reason:
        unavailable(reason)


def require_spark() -> None:
    reason = spark_missing()
    if reason:
        unavailable(reason)
