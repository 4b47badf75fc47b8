"""One data-test node per table (data-tests/generic/table_rules.sql) checks every rule the separate tests
checked, and fails on a broken table with rows that name the rule, the column and the value.

The faulty fixture's build is copied, fct_run_intervals is written again with a row of each kind of
fault (a repeated key, a negative length, a missing label, a run fct_runs does not have, opened by a
marker no interval opens with), and `dbt test` runs that table's table_rules node and the one of
the view over it (fct_run_interval_kinds) with their failing rows stored: each fault comes out as
one failing row of each node whose rules it breaks.
"""

from __future__ import annotations

import json
import re

import duckdb

from runlens.mart_catalog import declared_marts
from tests.support.pipeline import PROJECT, copy_database, project_copies, run_dbt

OLD_TESTS = {"primary_key", "not_null_columns", "not_negative", "has_match", "relationships", "accepted_values"}
BREAKS = """
create or replace table fct_run_intervals as
with

intervals as (
    select * from fct_run_intervals_whole
),

first_interval as (
    select * from intervals order by run_id, interval_index limit 1
)

select * from intervals
union all
-- the first interval once more: a repeated key
select * from first_interval
union all
-- a negative length and a missing label, on a new interval of the same run
select * replace (interval_index + 1000 as interval_index, -5.0 as seconds, null as label) from first_interval
union all
-- a run fct_runs does not have, opened by a marker kind no interval opens with
select * replace ('no-such-run' as run_id, 'run_end' as from_marker) from first_interval
"""


def test_a_broken_table_fails_its_node_with_rows_naming_each_rule_and_column(faulty_db_path, faulty_build, tmp_path):
    database = copy_database(faulty_db_path, tmp_path / "db")
    with duckdb.connect(str(database)) as connection:
        # a plain table in place of the mart (a view over int_run_intervals), without the constraints
        # of its contract, which would refuse the faults
        connection.execute("create table fct_run_intervals_whole as select * from fct_run_intervals")
        connection.execute("drop view fct_run_intervals")
        connection.execute(BREAKS)
        run_id, index, to_kind = connection.execute(
            "select run_id, interval_index, to_event_type from fct_run_interval_kinds"
            " where run_id != 'no-such-run' order by run_id, interval_index limit 1"
        ).fetchone()
    key = ("key", "run_id, interval_index", f"{run_id}, {index}")
    with project_copies().checkout(PROJECT) as project:
        result = run_dbt(
            project,
            faulty_build.raw,
            database,
            "test",
            "--select",
            "test_name:table_rules,fct_run_intervals",
            "test_name:table_rules,fct_run_interval_kinds",
            "--store-failures",
            "--write-json",  # the manifest, read below, in this test's folder (a worker's session
            "--target-path",  # may write to a private one when another holds the copy's own)
            str(tmp_path / "target"),
        )
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text(encoding="utf-8"))
    assert result.returncode != 0, result.stdout[-3000:]
    stored = failing_rows(database, manifest)
    assert sorted(stored["fct_run_intervals"]) == sorted(
        [key, ("matches", "run_id", "no-such-run"), ("not_negative", "seconds", "-5.0"), ("not_null", "label", "NULL")]
    )
    # the view over the broken table: a run_end opens an interval, which no interval kind has; the
    # rows it shares with fct_run_intervals one for one (the key, the match in fct_runs) fail there
    assert sorted(stored["fct_run_interval_kinds"]) == sorted(
        [
            ("accepted_values", "from_event_type", "run_end"),
            ("accepted_values", "interval_kind", f"run_end -> {to_kind}"),
            ("not_null", "label", "NULL"),
        ]
    )
    # dbt names the failing node and its count, as for any test
    assert re.search(r"FAIL 4 runlens_table_rules_fct_run_in", result.stdout), result.stdout[-3000:]


def failing_rows(database, manifest: dict) -> dict[str, list[tuple]]:
    """The failing rows dbt stored (--store-failures) of each table_rules node, by the table it tests."""
    stored = {}
    with duckdb.connect(str(database), read_only=True) as connection:
        for node in manifest["nodes"].values():
            if (node.get("test_metadata") or {}).get("name") != "table_rules":
                continue
            table = node["attached_node"].split(".")[-1]
            if table in ("fct_run_intervals", "fct_run_interval_kinds"):
                stored[table] = connection.execute(f'select * from main_dbt_test__audit."{node["alias"]}"').fetchall()
    return stored


def test_a_table_with_table_rules_keeps_none_of_the_tests_it_replaces():
    """A table's rules are one table_rules node (two when they differ in `changed`); none of the
    single-rule tests it replaces is left beside it, on the model or on a column."""
    for model in declared_marts():
        tests = list(model.get("data_tests") or [])
        for column in model.get("columns") or []:
            tests += column.get("data_tests") or []
        names = {(test if isinstance(test, str) else next(iter(test))).split(".")[-1] for test in tests}
        if "table_rules" in names:
            assert not OLD_TESTS & names, (model["name"], sorted(names))
