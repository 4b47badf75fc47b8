"""The same models on PostgreSQL and Spark give the same marts as on DuckDB (issue 6).

One raw folder holds the datasets of tests/support/engine_datasets.py: the bundled sample (sample/),
the faulty fixture (faulty/), the generated runs with ranks (ranks/, tests/support/ranks_fixture.py),
the goodput, timeline and utilization fixtures, and the profiler traces (traces/,
tests/support/traces_fixture.py: GPU traces of both schemas, two ranks of one job, a trace beside
a run's log, one cut short, a real CPU trace), with a collections file that is all of theirs.
The real project is built over it on DuckDB (the reference), on PostgreSQL and on Spark; on each
engine every dbt test (data and unit) must pass, and every mart of the other engines must equal
DuckDB's row by row (scripts/engines/parity.py: floats to a relative 1e-9, timestamps in UTC). The
three builds are declared `@prebuilt()`: they start in the background when the session starts. The
PostgreSQL loader's incremental bookkeeping is tested on its own.

The engines are an optional extra. Without a reachable server or pyspark these tests skip, saying
why; .ci/run starts PostgreSQL and sets RUNLENS_REQUIRE_ENGINES=1, which turns a skip into a
failure, so CI cannot pass without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs import trace_batches
from runlens.raw_logs.as_of import SAMPLE_AS_OF
from runlens.raw_logs.duckdb_reader import refresh as read_into_duckdb
from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE
from runlens.raw_logs.postgres_reader import refresh as read_into_postgres
from runlens.raw_logs.raw_tables import TABLES
from runlens.raw_logs.trace_batches import without_nul
from runlens.refresh.dbt_session import environment
from scripts.engines.connections import postgres_connection, postgres_settings
from scripts.engines.parity import compare, load_marts, read_duckdb, read_postgres, read_spark
from tests.support import kineto_traces
from tests.support.engine_datasets import DATASETS, ENGINES_PROJECT
from tests.support.engines_available import postgres_missing, require_postgres, require_spark, spark_missing
from tests.support.pipeline import DATABASE, REPO, UNIT_TESTS, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt

DESCRIBED = (
    "the sample, the faulty fixture, the runs with ranks, the goodput, timeline and utilization fixtures, the traces"
)
MARTS = load_marts()
SCHEMA = "runlens_parity"


def drop_schemas(*schemas: str) -> None:
    connection = postgres_connection(postgres_settings())
    with connection, connection.cursor() as cursor:
        for schema in schemas:
            cursor.execute(f'drop schema if exists "{schema}" cascade')
    connection.close()


def assert_build_passed(result: subprocess.CompletedProcess, what: str) -> None:
    assert result.returncode == 0, f"{what} failed:\n{result.stdout[-8000:]}\n{result.stderr[-3000:]}"
    assert "ERROR=0" in result.stdout and "SKIP=0" in result.stdout, result.stdout[-3000:]


def assert_same_marts(reference, candidate, engine: str) -> None:
    differences = compare(reference, candidate, MARTS, "duckdb", engine)
    assert not differences, f"{engine} differs from duckdb on {DESCRIBED}:\n" + "\n".join(
        str(difference) for difference in differences[:40]
    )
    assert set(candidate) == {mart.name for mart in MARTS}


def collections_of_every_dataset() -> str:
    """The collections files of every dataset as one: one header, then each dataset's rows."""
    header, rows = "", []
    for raw_dir in DATASETS.values():
        header, *own = (raw_dir / COLLECTIONS_FILE).read_text(encoding="utf-8").splitlines()
        rows += own
    return "\n".join([header, *rows]) + "\n"


FOLDER_LOCK = threading.Lock()
FOLDERS: list[Path] = []


def every_dataset(builds: Prebuilds) -> Path:
    """The session's raw folder with every dataset in a subfolder (made by the first build to ask)."""
    with FOLDER_LOCK:
        if not FOLDERS:
            raw = builds.mktemp("engines") / "raw"
            for name, raw_dir in DATASETS.items():
                shutil.copytree(raw_dir, raw / name)
            (raw / COLLECTIONS_FILE).write_text(collections_of_every_dataset(), encoding="utf-8")
            FOLDERS.append(raw)
        return FOLDERS[0]


@prebuilt()
def duckdb_reference(builds: Prebuilds) -> tuple[subprocess.CompletedProcess, dict]:
    """`dbt build` (unit tests included) over every dataset on DuckDB, and its marts."""
    database = builds.mktemp("engines_duckdb") / DATABASE
    result = run_dbt(ENGINES_PROJECT, every_dataset(builds), database, "build", *UNIT_TESTS)
    return result, (read_duckdb(database, MARTS) if result.returncode == 0 else {})


@prebuilt()
def postgres_build(builds: Prebuilds) -> tuple[subprocess.CompletedProcess, dict] | None:
    """`dbt build --target postgres` over every dataset, and its marts (None: no PostgreSQL)."""
    if postgres_missing():
        return None
    raw = every_dataset(builds)
    drop_schemas(SCHEMA, SCHEMA + "_raw")
    connection = postgres_connection(postgres_settings())
    with environment({"RUNLENS_AS_OF": SAMPLE_AS_OF}):  # as every test build judges live runs
        summary = read_into_postgres(connection, str(raw), SCHEMA + "_raw")
    connection.close()
    assert summary.read_files == summary.files > 0
    database = builds.mktemp("engines_postgres") / "unused.duckdb"
    result = run_dbt(
        ENGINES_PROJECT,
        raw,
        database,
        "build",
        "--target",
        "postgres",
        *UNIT_TESTS,
        env={"RUNLENS_PG_SCHEMA": SCHEMA},
    )
    return result, (read_postgres(postgres_settings(SCHEMA), MARTS) if result.returncode == 0 else {})


# what dbt-spark prints when the local SparkContext itself has stopped under a build (seen once in
# CI: "[INTERNAL_ERROR] Executed command failed" on a model that builds every other time, because
# SparkContext.dagScheduler() was null): the JVM failed, not a query
SPARK_CONTEXT_STOPPED = ('SparkContext.dagScheduler()" is null', "Cannot call methods on a stopped SparkContext")


def spark_context_stopped(result: subprocess.CompletedProcess) -> bool:
    return result.returncode != 0 and any(sign in result.stdout + result.stderr for sign in SPARK_CONTEXT_STOPPED)


@prebuilt(first=True)
def spark_build(builds: Prebuilds) -> tuple[subprocess.CompletedProcess, dict] | None:
    """`dbt build --target spark` over every dataset, and its marts (None: no Spark). A build whose
    SparkContext stopped under it is run once more, in a fresh warehouse, and says so in its output;
    any other failure, and a second stop, fails the test."""
    if spark_missing():
        return None
    result, folder = spark_build_once(builds)
    if spark_context_stopped(result):
        first = result
        result, folder = spark_build_once(builds)
        said = "(built again: the first build's SparkContext stopped)"
        result.stdout = f"{said}\n{first.stdout[-2000:]}\n{result.stdout}"
    return result, (read_spark(folder / "warehouse", "runlens", MARTS) if result.returncode == 0 else {})


def spark_build_once(builds: Prebuilds) -> tuple[subprocess.CompletedProcess, Path]:
    raw = every_dataset(builds)
    folder = builds.mktemp("engines_spark")
    environment = {
        "RUNLENS_SPARK_WAREHOUSE": str(folder / "warehouse"),
        "RUNLENS_SPARK_SCHEMA": "runlens",
        "SPARK_LOCAL_IP": "127.0.0.1",
        # a JVM that lives for one small build spends much of its CPU compiling code for a peak speed
        # it never reaches, and collecting garbage in parallel: the quick compiler only, a serial GC
        "JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    }
    result = run_dbt(
        ENGINES_PROJECT,
        raw,
        folder / "unused.duckdb",
        "build",
        "--target",
        "spark",
        *UNIT_TESTS,
        env=environment,
    )
    return result, folder


def test_duckdb_builds_the_reference_with_every_test_passing(duckdb_reference):
    result, _ = duckdb_reference
    assert_build_passed(result, f"dbt build over {DESCRIBED}")


def test_the_reference_holds_the_steps_of_every_trace_run(duckdb_reference):
    """The traces dataset's runs (traces_fixture.py) with their profiled steps, so that the marts
    compared hold them: a trace alone in its folder is a run by itself, the two ranks of gpu/job
    one run, the trace beside the log its run's; the cut trace none. Steps: each ProfilerStep span
    but the last of each trace (the plan's 3: 2; the real trace's 3: 2), the two ranks' 2 each,
    the trace without annotations 1."""
    _, marts = duckdb_reference
    traces = {row["run_id"] for row in marts["fct_traces"] if row["file_path"].startswith("traces/")}
    steps = {row["run_id"]: row["steps"] for row in marts["fct_run_step_summaries"] if row["run_id"] in traces}
    real = next(row["file_path"] for row in marts["fct_traces"] if row["file_path"].startswith("traces/cpu/"))
    assert steps == {
        "trace:traces/gpu/current/gpu.pt.trace.json": 2,
        "trace:traces/gpu/legacy/trace.json.gz": 2,
        "trace:traces/gpu/fractional/gpu.pt.trace.json": 2,
        "trace:traces/gpu/nosteps/gpu.pt.trace.json": 1,
        "trace:traces/gpu/job": 4,
        "traced-run": 2,
        f"trace:{real}": 2,
    }


def test_postgres_builds_the_same_marts(postgres_build, duckdb_reference):
    require_postgres()
    result, marts = postgres_build
    assert_build_passed(result, f"dbt build --target postgres over {DESCRIBED}")
    assert_same_marts(duckdb_reference[1], marts, "postgres")


def test_spark_builds_the_same_marts(spark_build, duckdb_reference):
    require_spark()
    result, marts = spark_build
    assert_build_passed(result, f"dbt build --target spark over {DESCRIBED}")
    assert_same_marts(duckdb_reference[1], marts, "spark")


# what Spark's log says when a stage's generated Java method passes the JVM's 64 KB limit: the
# stage then runs without generated code, row by row (where a wide row carried through an explode
# is copied for every output row; issue 29)
# (the compiler's "grows beyond 64 KB", or a warning of WholeStageCodegenExec: "Whole-stage codegen
# disabled for plan", "Found too long generated codes")
CODEGEN_FALLBACK = ("grows beyond 64 KB", "WholeStageCodegenExec:")


def test_every_spark_stage_of_the_build_runs_generated_code(spark_build):
    """The Spark build's log (its JVM writes to the process's standard error) names no stage that
    fell back from whole-stage code generation. The line parse did, before each line's fields
    were taken out of the parsed variant once (macros/engine/json_access.sql, parsed_fields)."""
    require_spark()
    result, _ = spark_build
    fallbacks = [line for line in result.stderr.splitlines() if any(sign in line for sign in CODEGEN_FALLBACK)]
    assert not fallbacks, "\n".join(fallbacks)[:3000]


def raw_lines(schema: str) -> list[tuple]:
    connection = postgres_connection(postgres_settings())
    with connection, connection.cursor() as cursor:
        cursor.execute(
            f'select file_path, line_number, text, is_invalid_utf8, is_blank from "{schema}".log_lines order by 1, 2'
        )
        rows = cursor.fetchall()
    connection.close()
    return rows


def read_into(raw_dir: Path, schema: str):
    connection = postgres_connection(postgres_settings())
    try:
        return read_into_postgres(connection, str(raw_dir), schema)
    finally:
        connection.close()


def test_postgres_reader_follows_the_folder_by_fingerprint(tmp_path):
    """New files are read, a grown file is read again whole (never duplicated), a removed file's
    lines leave, unchanged files are not read again; lines by the line rules (CR, invalid UTF-8);
    a NUL becomes the text \\u0000."""
    require_postgres()
    schema = "runlens_reader_test"
    drop_schemas(schema)
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.jsonl").write_bytes(b'{"n": 1}\n{"n": 2}\n')
    (raw / "b.jsonl").write_bytes(b'{"n": 3}\r\n\xff\n')
    (raw / "c.jsonl").write_bytes(b'{"n": "\x00"}\n')

    first = read_into(raw, schema)
    assert (first.files, first.read_files, first.read_lines, first.forgotten_files) == (3, 3, 5, 0)
    assert raw_lines(schema) == [
        ("a.jsonl", 1, '{"n": 1}', False, False),
        ("a.jsonl", 2, '{"n": 2}', False, False),
        ("b.jsonl", 1, '{"n": 3}', False, False),
        ("b.jsonl", 2, "\\xFF", True, False),
        ("c.jsonl", 1, '{"n": "\\u0000"}', False, False),
    ]

    with open(raw / "a.jsonl", "ab") as grown:
        grown.write(b'{"n": 4}\n')
    os.utime(raw / "a.jsonl", ns=(1, 2_000_000_000))  # a new mtime even on a coarse clock
    (raw / "c.jsonl").unlink()
    second = read_into(raw, schema)
    assert (second.files, second.read_files, second.read_lines, second.forgotten_files) == (2, 1, 3, 2)
    assert [row[:3] for row in raw_lines(schema)] == [
        ("a.jsonl", 1, '{"n": 1}'),
        ("a.jsonl", 2, '{"n": 2}'),
        ("a.jsonl", 3, '{"n": 4}'),
        ("b.jsonl", 1, '{"n": 3}'),
        ("b.jsonl", 2, "\\xFF"),
    ]

    third = read_into(raw, schema)
    assert (third.read_files, third.read_lines, third.forgotten_files) == (0, 0, 0)
    drop_schemas(schema)


def raw_traces(schema: str) -> dict[str, list[tuple]]:
    """trace_files (without loaded_at) and trace_events of schema on PostgreSQL, ordered."""
    connection = postgres_connection(postgres_settings())
    tables = {}
    with connection, connection.cursor() as cursor:
        for table in ("trace_files", "trace_events"):
            columns = ", ".join(name for name, _ in TABLES[table] if name != "loaded_at")
            cursor.execute(f'select {columns} from "{schema}".{table} order by 1, 3')
            tables[table] = cursor.fetchall()
    connection.close()
    return tables


def duckdb_traces(raw_dir: Path) -> dict[str, list[tuple]]:
    """The same tables as the DuckDB reader writes them, each NUL as PostgreSQL holds it (`\\u0000`)."""
    connection = duckdb.connect()
    read_into_duckdb(connection, str(raw_dir), "raw")
    tables = {}
    for table in ("trace_files", "trace_events"):
        columns = ", ".join(name for name, _ in TABLES[table] if name != "loaded_at")
        rows = connection.execute(f"select {columns} from raw.{table} order by 1, 3").fetchall()
        tables[table] = [tuple(map(without_nul, row)) for row in rows]
    connection.close()
    return tables


def test_postgres_reader_reads_traces_as_duckdb_does_and_follows_them_by_fingerprint(tmp_path, monkeypatch):
    """The traces' rows are the DuckDB reader's (a NUL aside, which PostgreSQL text cannot hold),
    their events sent two at a time; a changed trace is read again, a removed one's rows leave, an
    unchanged one is not read again."""
    require_postgres()
    monkeypatch.setattr(trace_batches, "BATCH_EVENTS", 2)
    schema = "runlens_trace_reader_test"
    drop_schemas(schema)
    raw = kineto_traces.reader_folder(tmp_path / "raw")
    read_into(raw, schema)
    first = raw_traces(schema)
    assert first == duckdb_traces(raw) and len(first["trace_files"]) == 6

    kineto_traces.write(raw / "job" / "rank-1.pt.trace.json", kineto_traces.current_trace(1, 2, collective_delay=40))
    os.utime(raw / "job" / "rank-1.pt.trace.json", ns=(1, 2_000_000_000))  # a new mtime even on a coarse clock
    (raw / "odd" / "odd.pt.trace.json").unlink()
    read_into(raw, schema)
    second = raw_traces(schema)
    assert second == duckdb_traces(raw) and len(second["trace_files"]) == 5
    # the all-reduce's launch (correlation 4) at 320 + 40 us now
    launch = [row for row in second["trace_events"] if row[0] == "job/rank-1.pt.trace.json" and row[11] == 4]
    assert [row[5] - kineto_traces.ORIGIN_US for row in launch if row[3] == "cuda_runtime"] == [360]

    connection = postgres_connection(postgres_settings())
    with connection, connection.cursor() as cursor:  # a trace not read again keeps its time of reading
        cursor.execute(f'select count(distinct loaded_at) from "{schema}".trace_files')
        [(times,)] = cursor.fetchall()
    connection.close()
    assert times == 2
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
