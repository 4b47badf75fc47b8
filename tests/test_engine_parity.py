"""The same models on PostgreSQL and Spark give the same marts as on DuckDB (issue 6).

For the bundled sample and the faulty fixture, the real project is built on DuckDB (the
reference) and on each other engine, every dbt test (data and unit) must pass there, and every
mart must equal DuckDB's row by row (scripts/engines/parity.py: floats to a relative 1e-9,
timestamps in UTC). The PostgreSQL loader's incremental bookkeeping is tested on its own.

The engines are an optional extra. Without a reachable server or pyspark these tests skip, saying
why; .ci/run starts PostgreSQL and sets RUNLENS_REQUIRE_ENGINES=1, which turns a skip into a
failure, so CI cannot pass without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from engines.connections import postgres_connection, postgres_settings
from engines.parity import compare, load_marts, read_duckdb, read_postgres, read_spark
from engines.raw_loader import load
from pipeline import REPO, build, copy_project, run_dbt

FAULTY = REPO / "tests" / "fixtures" / "faulty"
SAMPLE = REPO / "data" / "sample"
DATASETS = {"sample": (SAMPLE, None), "faulty": (FAULTY, FAULTY / "collections.csv")}
MARTS = load_marts()
REQUIRED = os.environ.get("RUNLENS_REQUIRE_ENGINES") == "1"


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"engine required by RUNLENS_REQUIRE_ENGINES=1 but unavailable: {reason}")
    pytest.skip(reason)


def require_postgres() -> None:
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        unavailable("psycopg2 not installed (requirements-engines.txt)")
    connection = postgres_connection(postgres_settings())
    if connection is None:
        unavailable("no PostgreSQL server at RUNLENS_PG_HOST:RUNLENS_PG_PORT (scripts/ci/postgres.sh start)")
    connection.close()


def require_spark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        unavailable("pyspark not installed (requirements-engines.txt)")
    if shutil.which("java") is None:
        unavailable("no java on PATH (Spark needs Java 17)")


def drop_schemas(*schemas: str) -> None:
    connection = postgres_connection(postgres_settings())
    with connection, connection.cursor() as cursor:
        for schema in schemas:
            cursor.execute(f'drop schema if exists "{schema}" cascade')
    connection.close()


def assert_build_passed(result: subprocess.CompletedProcess, what: str) -> None:
    assert result.returncode == 0, f"{what} failed:\n{result.stdout[-8000:]}\n{result.stderr[-3000:]}"
    assert "ERROR=0" in result.stdout and "SKIP=0" in result.stdout, result.stdout[-3000:]


def assert_same_marts(reference, candidate, engine: str, dataset: str) -> None:
    differences = compare(reference, candidate, MARTS, "duckdb", engine)
    assert not differences, f"{engine} differs from duckdb on {dataset}:\n" + "\n".join(
        str(difference) for difference in differences[:40]
    )
    assert set(candidate) == {mart.name for mart in MARTS}


@pytest.fixture(scope="module", params=sorted(DATASETS))
def built(request, tmp_path_factory):
    """A scratch copy of the project for one dataset, with the DuckDB reference built in it."""
    name = request.param
    raw_dir, seed = DATASETS[name]
    project = copy_project(tmp_path_factory.mktemp(f"engines_{name}"), seed)
    database = project / "reference.duckdb"
    build(project, raw_dir, database)
    return name, project, raw_dir, read_duckdb(database, MARTS)


def test_postgres_builds_the_same_marts(built):
    require_postgres()
    name, project, raw_dir, reference = built
    schema = f"runlens_parity_{name}"
    drop_schemas(schema, schema + "_raw")
    connection = postgres_connection(postgres_settings())
    summary = load(str(raw_dir), connection, schema + "_raw")
    connection.close()
    assert summary.loaded_files == summary.files > 0
    result = run_dbt(
        project,
        raw_dir,
        project / "unused.duckdb",
        "build",
        "--target",
        "postgres",
        env={"RUNLENS_PG_SCHEMA": schema},
    )
    assert_build_passed(result, f"dbt build --target postgres over {name}")
    assert_same_marts(reference, read_postgres(postgres_settings(schema), MARTS), "postgres", name)


def test_spark_builds_the_same_marts(built, tmp_path):
    require_spark()
    name, project, raw_dir, reference = built
    warehouse = tmp_path / "warehouse"
    result = run_dbt(
        project,
        raw_dir,
        project / "unused.duckdb",
        "build",
        "--target",
        "spark",
        env={
            "RUNLENS_SPARK_WAREHOUSE": str(warehouse),
            "RUNLENS_SPARK_SCHEMA": "runlens",
            "SPARK_LOCAL_IP": "127.0.0.1",
        },
    )
    assert_build_passed(result, f"dbt build --target spark over {name}")
    assert_same_marts(reference, read_spark(warehouse, "runlens", MARTS), "spark", name)


def raw_rows(schema: str) -> list[tuple]:
    connection = postgres_connection(postgres_settings())
    with connection, connection.cursor() as cursor:
        cursor.execute(
            f'select file_path, text, invalid_line_numbers, read_error from "{schema}".log_files order by file_path'
        )
        rows = cursor.fetchall()
    connection.close()
    return rows


def load_into(raw_dir: Path, schema: str):
    connection = postgres_connection(postgres_settings())
    try:
        return load(str(raw_dir), connection, schema)
    finally:
        connection.close()


def test_postgres_loader_follows_the_folder_by_fingerprint(tmp_path):
    """New files load, a grown file reloads whole (never duplicated), a removed file leaves,
    unchanged files are not read again; a NUL becomes the text \\u0000."""
    require_postgres()
    schema = "runlens_loader_test"
    drop_schemas(schema)
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.jsonl").write_bytes(b'{"n": 1}\n{"n": 2}\n')
    (raw / "b.jsonl").write_bytes(b'{"n": 3}\r\n\xff\n')
    (raw / "c.jsonl").write_bytes(b'{"n": "\x00"}\n')

    first = load_into(raw, schema)
    assert (first.files, first.loaded_files, first.loaded_lines, first.removed_files) == (3, 3, 5, 0)
    assert raw_rows(schema) == [
        ("a.jsonl", '{"n": 1}\n{"n": 2}\n', [], None),
        ("b.jsonl", '{"n": 3}\r\n\\xFF\n', [2], None),
        ("c.jsonl", '{"n": "\\u0000"}\n', [], None),
    ]

    with open(raw / "a.jsonl", "ab") as grown:
        grown.write(b'{"n": 4}\n')
    os.utime(raw / "a.jsonl", ns=(1, 2_000_000_000))  # a new mtime even on a coarse clock
    (raw / "c.jsonl").unlink()
    second = load_into(raw, schema)
    assert (second.files, second.loaded_files, second.loaded_lines, second.removed_files) == (2, 1, 3, 1)
    assert [row[:2] for row in raw_rows(schema)] == [
        ("a.jsonl", '{"n": 1}\n{"n": 2}\n{"n": 4}\n'),
        ("b.jsonl", '{"n": 3}\r\n\\xFF\n'),
    ]

    third = load_into(raw, schema)
    assert (third.loaded_files, third.loaded_lines, third.removed_files) == (0, 0, 0)
    drop_schemas(schema)


def test_engine_build_names_an_unreachable_server_in_one_line():
    pytest.importorskip("psycopg2")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "engine_build.py"), "postgres"],
        env={**os.environ, "RUNLENS_PG_HOST": "127.0.0.1", "RUNLENS_PG_PORT": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("runlens: cannot connect to PostgreSQL at 127.0.0.1:1"), lines


def test_engine_build_rejects_an_unknown_engine():
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "engine_build.py"), "oracle"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and "usage:" in result.stderr
