"""A plain `dbt build` over the bundled sample gives the same marts and pages as `make sample`
(issue 21): the sample pins its own as-of time in data/sample/runlens_as_of.txt and names its
collections in data/sample/runlens_collections.csv, so no build needs to be told either."""

from __future__ import annotations

from pathlib import Path

import duckdb

from runlens.mart_catalog import compared_mart_names, compared_query
from runlens.raw_logs.as_of import SAMPLE_AS_OF, parse_as_of
from runlens.report.render import render_reports
from tests.support.pipeline import DATABASE, REFRESH, SAMPLE, copy_project, rounded, run_dbt, runlens_command
from tests.support.prebuilt import Prebuilds, prebuilt

UNPINNED = {"RUNLENS_AS_OF": ""}  # an empty RUNLENS_AS_OF pins nothing (as_of.py)


def marts(database: Path) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        tables = {
            mart: rounded(connection.sql(compared_query(mart)).fetchall())
            for mart in compared_mart_names()
            if mart != "agg_file_data_quality"
        }
        tables["as_of"] = connection.sql("select as_of_at, as_of_source from dim_build").fetchall()
    return tables


@prebuilt()
def sample_two_ways(builds: Prebuilds) -> tuple[Path, Path]:
    """The sample built as `make sample` builds it (`runlens build`, nothing pinned in the
    environment) and by a plain `dbt build` of the models and data tests, each into its own database."""
    root = builds.mktemp("sample_two_ways")
    project = copy_project(root / "project")
    made = root / "make" / DATABASE
    made.parent.mkdir()
    result = runlens_command(
        "build",
        "--logs",
        SAMPLE,
        "--db",
        made,
        env={**UNPINNED, "RUNLENS_PROJECT_DIR": str(project), "RUNLENS_CACHE_DIR": str(root / "cache")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    plain = root / "plain" / DATABASE
    result = run_dbt(project, SAMPLE, plain, *REFRESH, env=UNPINNED)
    assert result.returncode == 0, result.stdout[-3000:]
    return made, plain


def test_a_plain_dbt_build_of_the_sample_gives_the_marts_of_make_sample(sample_two_ways):
    made, plain = sample_two_ways
    assert marts(plain) == marts(made)
    # the sample's own as-of time, from its folder, on both
    assert marts(plain)["as_of"] == [(parse_as_of(SAMPLE_AS_OF), "pinned")]


def test_a_plain_dbt_build_of_the_sample_gives_the_pages_of_make_sample(sample_two_ways, tmp_path):
    made, plain = sample_two_ways
    render_reports(made, tmp_path / "make")
    render_reports(plain, tmp_path / "plain")

    def pages(folder: Path) -> dict[str, bytes]:
        return {
            str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
        }

    assert pages(tmp_path / "plain") == pages(tmp_path / "make")
    index = (tmp_path / "plain" / "index.md").read_text(encoding="utf-8")
    assert "| 4 | 1 | 0 | 2025-03-10 13:35 UTC |" in index  # v4's sweep is still running, as written
