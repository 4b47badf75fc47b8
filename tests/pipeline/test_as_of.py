"""A refresh with nothing changed but the as-of time (issue 16): only the marts that depend on
"now" change; every other mart stays row for row what it was."""

from __future__ import annotations

import duckdb

from runlens.mart_catalog import MARTS_DIR, mart_names
from tests.support.mart_snapshots import copy_of_faulty_build
from tests.support.pipeline import PROJECT, REFRESH, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt

# what a build's as-of time may change: the build's own record, the live-run marts and the goodput
# marts (a live run's goodput so far)
NOW_DEPENDENT = {"dim_build"} | {
    path.stem for folder in ("live", "goodput") for path in (MARTS_DIR / folder).glob("*.sql")
}


def tables(database) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return {mart: connection.sql(f"select * from {mart} order by all").fetchall() for mart in mart_names()}


@prebuilt()
def as_of_refresh(builds: Prebuilds):
    """The faulty fixture's build, copied, then refreshed with another as-of time."""
    raw, database = copy_of_faulty_build(builds.result("faulty_build"), builds.mktemp("as_of"))
    before = tables(database)
    result = run_dbt(PROJECT, raw, database, *REFRESH, env={"RUNLENS_AS_OF": "2025-06-01T00:00:00Z"}, planned=True)
    assert result.returncode == 0, result.stdout[-4000:]
    return before, tables(database)


def test_only_now_dependent_marts_change_with_the_as_of_time(as_of_refresh):
    before, after = as_of_refresh
    changed = {mart for mart in before if before[mart] != after[mart]}
    assert changed <= NOW_DEPENDENT, changed - NOW_DEPENDENT
    # alpha-incomplete is still going at both times: its elapsed and silent time moved on
    assert {"dim_build", "fct_run_live_status"} <= changed
