"""The mart parity checker (scripts/parity.py, scripts/engines/parity.py), DuckDB only.

Copies of the sample's built database stand in for the other engines: an identical copy must
compare equal, and each deliberate change to a copy must come out as one difference naming its
table, key and column. The Spark reader is exercised on parquet files written from a copy in
dbt-spark's warehouse layout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import duckdb
import pytest

from runlens.mart_catalog import mart_names
from scripts.engines.parity import (
    Mart,
    compare,
    load_marts,
    normalise,
    read_duckdb,
    read_spark,
    values_equal,
)
from tests.support.pipeline import REPO

PARITY = REPO / "scripts" / "parity.py"
MARTS = load_marts()


@pytest.fixture(scope="session")
def sample_path(sample_db):
    """Path of the sample's built DuckDB database (the fixture gives a connection to it)."""
    return first(sample_db, "select path from duckdb_databases() where database_name = current_database()")


@pytest.fixture
def copy_db(sample_path, tmp_path):
    """Makes a copy of the sample database, runs the given SQL on it, and returns its path."""

    def make(name: str, *statements: tuple[str, list] | str):
        target = tmp_path / f"{name}.duckdb"
        shutil.copy(sample_path, target)
        connection = duckdb.connect(str(target))
        for statement in statements:
            sql, parameters = (statement, []) if isinstance(statement, str) else statement
            connection.execute(sql, parameters)
        connection.close()
        return target

    return make


def first(sample_db, sql):
    """The first value of the first row of a query on the sample database (on a cursor of its own,
    so no result is left pending on the session's shared connection)."""
    cursor = sample_db.cursor()
    try:
        row = cursor.execute(sql).fetchone()
    finally:
        cursor.close()
    assert row is not None, f"the sample has no row for: {sql}"
    return row[0]


def differences(reference_path, candidate_path):
    return compare(read_duckdb(reference_path, MARTS), read_duckdb(candidate_path, MARTS), MARTS, "duckdb", "copy")


def run_cli(*args, env=None):
    return subprocess.run(
        [sys.executable, str(PARITY), *map(str, args)], capture_output=True, text=True, check=False, env=env
    )


def test_marts_and_keys_come_from_the_yaml():
    """Every mart's SQL file below models/marts is declared, and all but those that record the
    build itself (dim_build) are compared."""
    files = {path.stem for path in (REPO / "models" / "marts").rglob("*.sql")}
    assert set(mart_names()) == files
    assert {mart.name for mart in MARTS} == files - {"dim_build"}
    keys = {mart.name: mart.key for mart in MARTS}
    assert keys["fct_runs"] == ("run_id",)
    assert keys["dim_collections"] == ("collection",)
    assert keys["agg_file_data_quality"] == ("file_path",)
    assert keys["agg_build_reject_reasons"] == ("reject_reason",)
    assert keys["fct_run_intervals"] == ("run_id", "interval_index")
    for mart in MARTS:
        assert mart.key and set(mart.key) <= set(mart.columns), mart.name


def test_values_normalise_and_compare():
    assert normalise(Decimal("1.25")) == 1.25 and isinstance(normalise(Decimal("1.25")), float)
    aware = datetime(2025, 1, 1, 2, 0, tzinfo=timezone(timedelta(hours=2)))
    assert normalise(aware) == datetime(2025, 1, 1, 0, 0)
    assert normalise(datetime(2025, 1, 1, tzinfo=UTC)).tzinfo is None
    assert normalise(datetime(2025, 1, 1)) == datetime(2025, 1, 1)
    assert values_equal(3, 3.0) and values_equal(1.0, 1.0 + 1e-12) and not values_equal(1.0, 1.0 + 1e-6)
    assert values_equal(None, None) and not values_equal(None, 0) and not values_equal(0.0, None)
    assert values_equal(True, True) and not values_equal(True, 1) and not values_equal(False, 0.0)
    assert values_equal("a", "a") and not values_equal("a", "a ") and not values_equal("1", 1)
    assert values_equal(float("nan"), float("nan"))


def test_compare_reports_missing_tables_columns_and_duplicates_on_either_side():
    mart = Mart("m", ("k",), ("k", "v"))
    reference = {"m": [{"k": 1, "v": "a"}, {"k": 2, "v": "b"}]}
    assert compare(reference, {}, [mart], "ref", "cand")[0].problem == "missing table"
    found = compare(reference, {"m": [{"k": 1}, {"k": 2}]}, [mart], "ref", "cand")
    assert [(d.problem, d.column, d.side) for d in found] == [("missing column", "v", "cand")]
    found = compare({"m": reference["m"] * 2}, reference, [mart], "ref", "cand")
    assert {(d.problem, d.key, d.side, d.count) for d in found} == {
        ("duplicate key", "k=1", "ref", 2),
        ("duplicate key", "k=2", "ref", 2),
    }
    assert "cand vs ref: m [k=1]: key appears 2 times in ref" in {str(d) for d in found}
    found = compare(reference, {"m": reference["m"] + [{"k": 3, "v": "c"}]}, [mart], "ref", "cand")
    assert [(d.problem, d.key, d.side) for d in found] == [("missing row", "k=3", "ref")]


def test_identical_copies_are_equal(copy_db, sample_path):
    reference = read_duckdb(sample_path, MARTS)
    assert set(reference) == {mart.name for mart in MARTS}
    assert any(reference.values()), "the sample's marts are empty"
    assert differences(sample_path, copy_db("same")) == []


def test_float_changed_by_a_millionth_is_a_difference(copy_db, sample_db, sample_path):
    run_id = first(sample_db, "select run_id from fct_runs where wall_seconds > 0 order by run_id")
    sql = ("update fct_runs set wall_seconds = wall_seconds * (1 + 1e-6) where run_id = ?", [run_id])
    (found,) = differences(sample_path, copy_db("float", sql))
    assert (found.table, found.key, found.column, found.problem) == (
        "fct_runs",
        f"run_id={run_id}",
        "wall_seconds",
        "value",
    )
    assert found.candidate_value != found.reference_value
    assert f"fct_runs [run_id={run_id}] wall_seconds" in str(found)


def test_float_changed_by_a_trillionth_is_not_a_difference(copy_db, sample_db, sample_path):
    run_id = first(sample_db, "select run_id from fct_runs where wall_seconds > 0 order by run_id")
    sql = ("update fct_runs set wall_seconds = wall_seconds * (1 + 1e-12) where run_id = ?", [run_id])
    candidate = copy_db("tiny", sql)
    changed = duckdb.connect(str(candidate), read_only=True)
    value = changed.execute("select wall_seconds from fct_runs where run_id = ?", [run_id]).fetchone()[0]
    changed.close()
    assert value != first(sample_db, f"select wall_seconds from fct_runs where run_id = '{run_id}'")
    assert differences(sample_path, candidate) == []


def test_changed_string_is_a_difference(copy_db, sample_db, sample_path):
    collection = first(sample_db, "select collection from dim_collections order by collection")
    sql = ("update dim_collections set title = title || ' (changed)' where collection = ?", [collection])
    (found,) = differences(sample_path, copy_db("string", sql))
    assert (found.table, found.key, found.column) == ("dim_collections", f"collection={collection}", "title")
    assert found.candidate_value == found.reference_value + " (changed)"


def test_deleted_row_is_a_difference(copy_db, sample_db, sample_path):
    reason = first(sample_db, "select reject_reason from agg_build_reject_reasons order by reject_reason")
    sql = ("delete from agg_build_reject_reasons where reject_reason = ?", [reason])
    (found,) = differences(sample_path, copy_db("deleted", sql))
    assert (found.table, found.key, found.problem, found.side) == (
        "agg_build_reject_reasons",
        f"reject_reason={reason}",
        "missing row",
        "copy",
    )
    assert f"agg_build_reject_reasons [reject_reason={reason}]: row missing in copy" in str(found)


def test_duplicate_key_is_a_difference(copy_db, sample_db, sample_path):
    run_id = first(sample_db, "select run_id from fct_run_intervals where interval_index = 1 order by run_id")
    # fct_run_intervals is a view over int_run_intervals: a duplicate there shows in the mart
    sql = "insert into int_run_intervals select * from int_run_intervals where run_id = ? and interval_index = 1"
    # ... and in fct_run_interval_kinds, a view over fct_run_intervals
    found_all = differences(sample_path, copy_db("duplicate", (sql, [run_id])))
    assert sorted(found.table for found in found_all) == ["fct_run_interval_kinds", "fct_run_intervals"]
    (found,) = [found for found in found_all if found.table == "fct_run_intervals"]
    assert (found.table, found.key, found.problem, found.side) == (
        "fct_run_intervals",
        f"run_id={run_id}, interval_index=1",
        "duplicate key",
        "copy",
    )


def test_null_against_zero_is_a_difference(copy_db, sample_db):
    run_id = first(sample_db, "select run_id from fct_runs order by run_id")
    reference = copy_db("null", ("update fct_runs set tail_seconds = null where run_id = ?", [run_id]))
    candidate = copy_db("zero", ("update fct_runs set tail_seconds = 0 where run_id = ?", [run_id]))
    (found,) = differences(reference, candidate)
    assert (found.table, found.key, found.column) == ("fct_runs", f"run_id={run_id}", "tail_seconds")
    assert (found.reference_value, found.candidate_value) == (None, 0.0)


def write_spark_warehouse(database, warehouse, schema):
    """The database's marts as dbt-spark writes them: parquet part files, timestamps with a time zone."""
    connection = duckdb.connect(str(database), read_only=True)
    connection.execute("set TimeZone = 'UTC'")
    for mart in MARTS:
        folder = warehouse / f"{schema}.db" / mart.name
        folder.mkdir(parents=True)
        (folder / "_SUCCESS").touch()
        columns = connection.execute(
            "select column_name, data_type from information_schema.columns"
            " where table_name = ? order by ordinal_position",
            [mart.name],
        ).fetchall()
        select = ", ".join(
            f'"{name}"::timestamptz as "{name}"' if kind == "TIMESTAMP" else f'"{name}"' for name, kind in columns
        )
        connection.execute(f"copy (select {select} from {mart.name}) to '{folder / 'part-00000-x.snappy.parquet'}'")
    connection.close()


def test_spark_warehouse_reads_equal_to_duckdb(copy_db, sample_path, tmp_path):
    warehouse = tmp_path / "warehouse"
    write_spark_warehouse(copy_db("spark_source"), warehouse, "runlens")
    spark = read_spark(warehouse, "runlens", MARTS)
    assert compare(read_duckdb(sample_path, MARTS), spark, MARTS, "duckdb", "spark") == []
    result = run_cli("--reference", f"duckdb:{sample_path}", "--candidate", f"spark:{warehouse}:runlens")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "parity: spark vs duckdb:" in result.stdout


def test_cli_exit_status(copy_db, sample_db, sample_path):
    same = run_cli("--reference", f"duckdb:{sample_path}", "--candidate", f"duckdb:{copy_db('same')}")
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.strip().endswith(" 0 differences")
    run_id = first(sample_db, "select run_id from fct_runs where wall_seconds > 0 order by run_id")
    sql = ("update fct_runs set wall_seconds = wall_seconds * 1.001 where run_id = ?", [run_id])
    altered = run_cli("--reference", f"duckdb:{sample_path}", "--candidate", f"duckdb:{copy_db('altered', sql)}")
    assert altered.returncode == 1, altered.stdout + altered.stderr
    assert f"fct_runs [run_id={run_id}] wall_seconds" in altered.stdout
    assert altered.stdout.strip().endswith(" 1 difference")


def test_cli_user_mistakes_exit_2_with_one_line(tmp_path, sample_path):
    missing = run_cli("--reference", f"duckdb:{tmp_path / 'nope.duckdb'}", "--candidate", f"duckdb:{sample_path}")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "nope.duckdb" in missing.stderr
    no_warehouse = run_cli("--reference", f"duckdb:{sample_path}", "--candidate", f"spark:{tmp_path / 'wh'}:runlens")
    assert no_warehouse.returncode == 2 and no_warehouse.stderr.count("\n") == 1
    env = {"PATH": "/usr/bin:/bin", "RUNLENS_PG_HOST": "127.0.0.1", "RUNLENS_PG_PORT": "1"}
    no_server = run_cli("--reference", f"duckdb:{sample_path}", "--candidate", "postgres:runlens", env=env)
    assert no_server.returncode == 2 and no_server.stderr.count("\n") == 1, no_server.stderr
