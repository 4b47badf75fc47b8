"""Incremental refresh equals a full rebuild, row for row, after additions, appends, rewrites and
deletions of raw files (issue: fast at millions of events)."""

from __future__ import annotations

import gzip
import os
import shutil

import duckdb
import pytest
from conftest import FAULTY
from pipeline import build, copy_project, rounded, run_dbt

COMPARED = [
    "fct_events",
    "fct_rejected_lines",
    "fct_duplicate_lines",
    "fct_runs",
    "fct_run_intervals",
    "agg_collection_runtime",
    "agg_task_runtime",
    "agg_interval_positions",
    "agg_longest_intervals",
    "agg_profile_sections",
    "cmp_collections",
    "cmp_task_runtime",
    "cmp_config_differences",
    "dim_collections",
    "agg_reject_reasons",
]


def snapshot(database) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        tables = {
            table: rounded(connection.sql(f"select * from {table} order by all").fetchall()) for table in COMPARED
        }
        tables["agg_file_data_quality"] = connection.sql(
            "select * exclude (modified_at) from agg_file_data_quality order by all"
        ).fetchall()
    return tables


def bump_mtime(path):
    """Make sure a rewrite is seen even on a file system with coarse timestamps."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def line(run_id, event, minute, **fields):
    import json

    return json.dumps({"run_id": run_id, "event": event, "ts": f"2025-01-01T09:{minute:02d}:00Z", **fields}) + "\n"


STEPS = {
    "add a file with a new run": lambda raw: (raw / "alpha" / "new.jsonl").write_text(
        line("alpha-new", "run_start", 0, collection="fixture/alpha", task="classify")
        + line("alpha-new", "epoch_end", 20)
        + line("alpha-new", "run_end", 30)
    ),
    "append to a file (the incomplete run ends)": lambda raw: (
        (raw / "alpha" / "tie.jsonl").open("a").write(line("alpha-incomplete", "run_end", 59)),
        bump_mtime(raw / "alpha" / "tie.jsonl"),
    ),
    "delete a file": lambda raw: (raw / "zz-dupes.jsonl").unlink(),
    "rewrite a gzip file": lambda raw: (
        (raw / "alpha" / "resumed-2.jsonl.gz").write_bytes(
            gzip.compress(line("alpha-resumed", "run_end", 50).encode(), mtime=0)
        ),
        bump_mtime(raw / "alpha" / "resumed-2.jsonl.gz"),
    ),
    "add a file that duplicates an existing line and sorts first": lambda raw: (raw / "aaa.jsonl").write_text(
        (raw / "alpha" / "plain.jsonl").read_text().splitlines()[0] + "\n"
    ),
    "empty a file": lambda raw: (
        (raw / "base" / "runs.jsonl").write_text(""),
        bump_mtime(raw / "base" / "runs.jsonl"),
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("incremental_project"), FAULTY / "collections.csv")


def test_incremental_refresh_equals_full_rebuild(project, tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FAULTY, raw)
    incremental_db, full_db = tmp_path / "incremental.duckdb", tmp_path / "full.duckdb"
    build(project, raw, incremental_db)
    for step, change in STEPS.items():
        change(raw)
        build(project, raw, incremental_db)
        result = run_dbt(project, raw, full_db, "build", "--full-refresh")
        assert result.returncode == 0, result.stdout[-3000:]
        incremental, full = snapshot(incremental_db), snapshot(full_db)
        for table in full:
            assert incremental[table] == full[table], f"after '{step}': {table} differs from a full rebuild"


def test_refresh_with_nothing_changed_reads_no_file(project, tmp_path):
    """A second build over unchanged files keeps every loaded line row in place (same rowids):
    no file was read again, and every mart is unchanged."""
    raw = tmp_path / "raw"
    shutil.copytree(FAULTY, raw)
    database = tmp_path / "x.duckdb"
    build(project, raw, database)

    def loaded_rows():
        with duckdb.connect(str(database), read_only=True) as connection:
            return connection.sql("select rowid, file_path, line_number from stg_log_lines order by rowid").fetchall()

    before_rows, before = loaded_rows(), snapshot(database)
    build(project, raw, database)
    assert loaded_rows() == before_rows
    assert snapshot(database) == before
