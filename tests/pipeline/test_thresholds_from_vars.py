"""Every threshold a page states comes from its dbt var through the marts (dim_build,
agg_collection_stragglers), never from the template: the sample built with other vars says other
thresholds, and its figures follow them (the v4 collection's base_conversion is 1.26x slower than
in its baseline: a regression at 10%, none at 30%)."""

from __future__ import annotations

import duckdb

from runlens.mart_catalog import compared_query
from runlens.report.render import render_reports
from tests.support.pipeline import DATABASE, PROJECT, SAMPLE, build, copy_database, rounded
from tests.support.prebuilt import Prebuilds, prebuilt

OTHER_VARS = (
    "{regression_threshold: 0.3, regression_min_runs: 2, stall_multiple: 4.5, stall_min_seconds: 1200,"
    " straggler_min_excess_share: 0.05, straggler_min_excess_seconds: 90}"
)
V4 = "from-entangled-v2-continuous-v4-live/profile.md"


@prebuilt()
def other_vars_build(builds: Prebuilds):
    database = builds.mktemp("other_vars") / DATABASE
    build(PROJECT, SAMPLE, database, "--vars", OTHER_VARS)
    return database


def pages(database, folder) -> dict[str, str]:
    render_reports(database, folder)
    return {name: (folder / name).read_text(encoding="utf-8") for name in ("index.md", V4)}


def test_the_pages_state_the_vars_the_marts_were_built_with(sample_build, other_vars_build, tmp_path):
    default, other = pages(sample_build.database, tmp_path / "default"), pages(other_vars_build, tmp_path / "other")
    assert "tasks more than 10% slower than in their baseline, with at least 3 analyzed runs" in default["index.md"]
    # at 30% nothing regressed: the index has no regressions to list, and says no 10% anywhere
    assert "Regressions:" not in other["index.md"] and "10%" not in other["index.md"]
    assert "a task regressed when it is more than 10% slower with at least 3 runs on both sides" in default[V4]
    assert "a task regressed when it is more than 30% slower with at least 2 runs on both sides" in other[V4]
    assert "Stalled: silent for longer than 3 times" in default[V4] and "and at least 10 min;" in default[V4]
    assert "Stalled: silent for longer than 4.5 times" in other[V4] and "and at least 20 min;" in other[V4]
    assert "an excess of at least 2% of its wall time and 10 s" in default[V4]
    assert "an excess of at least 5% of its wall time and 90 s" in other[V4]
    # the figures follow the vars: base_conversion (2.48 h against 1.97 h, 1.26x) regressed at 10% only
    assert "1 task regressed: base_conversion (1.26x slower)" in default[V4]
    assert "regressed: base_conversion" not in other[V4]
    with duckdb.connect(str(other_vars_build), read_only=True) as connection:
        assert connection.sql(
            "select regression_threshold, regression_min_runs, stall_multiple, stall_min_seconds from dim_build"
        ).fetchall() == [(0.3, 2, 4.5, 1200.0)]


# straggler vars under which the sample's stragglers differ from the defaults' (checked below)
STRAGGLER_VARS = "{straggler_robust_z: 1.5, straggler_wall_multiple: 1.1, straggler_min_excess_seconds: 1}"


def stragglers(database) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return rounded(connection.sql(compared_query("fct_run_stragglers")).fetchall())


def test_a_refresh_with_other_straggler_vars_judges_every_run_again(sample_build, tmp_path):
    """fct_run_stragglers is incremental by task: a refresh with other straggler vars, its logs
    unchanged, gives the rows a fresh build with those vars gives, not the rows it kept."""
    refreshed = copy_database(sample_build.database, tmp_path / "refreshed")
    build(PROJECT, SAMPLE, refreshed, "--vars", STRAGGLER_VARS)
    fresh = tmp_path / "fresh" / DATABASE
    build(PROJECT, SAMPLE, fresh, "--vars", STRAGGLER_VARS)
    assert stragglers(fresh) != stragglers(sample_build.database)  # the vars change the verdicts
    assert stragglers(refreshed) == stragglers(fresh)
