"""`runlens marts`: every mart with its grain and its rows, so a reader starts without
information_schema (issue 25, "Bearings in one command")."""

from __future__ import annotations

from runlens.mart_catalog import mart_names
from tests.support.pipeline import runlens_command


def test_every_mart_is_listed_with_its_grain_and_rows(sample_build):
    result = runlens_command("marts", "--db", sample_build.database)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{len(mart_names())} marts in {sample_build.database}")
    rows = {line.split()[0]: line.split(maxsplit=2)[1:] for line in lines[2:]}
    assert set(rows) == set(mart_names())
    # the sample's runs: 38 of v3, 24 of v2 and 14 of v4 (scripts/generate_sample.py), 3 collections
    assert rows["fct_runs"] == ["76", "one row per run_id"]
    assert rows["dim_collections"][0] == "3"
    assert rows["fct_run_live_status"] == ["6", "one row per incomplete run"]
    # and two profiler traces, one v3 run's and one v4 run's (SAMPLE_TRACES), 5 profiled steps each
    assert rows["fct_traces"][0] == "2"
    assert rows["fct_run_steps"][0] == "10"


def test_a_missing_database_is_one_line(tmp_path):
    database = tmp_path / "none.duckdb"
    result = runlens_command("marts", "--db", database)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"runlens: no database at {database}: build it first: `runlens build --logs <folder> --db {database}`, "
        "or pass another --db"
    ]
