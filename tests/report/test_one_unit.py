"""One figure, one reading, on the bundled sample's rendered report (rules.md, "Units and
precision"): a whole-run wall time reads the same on the index, on its own page and on the page
that compares with it; a wall-time chart gives its bars in its axis' unit; GPU-hours have three
significant digits; a chart's note names only what it draws (lighter bars, failed runs).

The report's unit is minutes: its shortest analyzed run (a v3 run, from the oracle's runs, which
share no code with the models) is under an hour, so no whole-run wall time reads in hours anywhere
(rules.md: nothing under an hour reads in hours, and one unit for the figures that compare).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from matplotlib.figure import Figure

import runlens.report.render as render
from tests.support.oracle import read_events, runs_from
from tests.support.pipeline import SAMPLE

V2, V3, V4 = (
    "from-entangled-v2-continuous-v2",
    "from-entangled-v2-continuous-v3-beta-schedule",
    "from-entangled-v2-continuous-v4-live",
)
ORACLE_RUNS = runs_from(read_events(SAMPLE))
UNIT_WORDS = {"seconds": "s", "minutes": "min", "hours": "h", "days": "d"}


@pytest.fixture(scope="module")
def drawn(sample_build, tmp_path_factory):
    """The sample's report, and what every chart it drew says: its title, axis labels, bar labels
    and crosses, by the page folder it was written to."""
    out = tmp_path_factory.mktemp("one_unit")
    charts: dict[tuple[str, str], dict] = {}
    savefig = Figure.savefig

    def recording(figure, target, *args, **kwargs):
        axes = figure.axes[0]
        crosses = [line for line in axes.lines if line.get_marker() == "x"]
        charts[(current["folder"], axes.get_title())] = {
            "xlabel": axes.get_xlabel(),
            "texts": [text.get_text() for text in axes.texts],
            "black_crosses": [line.get_ydata()[0] for line in crosses if line.get_color() == "black"],
            "rows": [label.get_text() for label in axes.get_yticklabels()],
            "alphas": [patch.get_alpha() for patch in axes.patches],
        }
        return savefig(figure, target, *args, **kwargs)

    current = {"folder": ""}
    Figure.savefig = recording
    original_draw = render.draw

    def draw(path, draw_png, *figures):
        current["folder"] = Path(path).parent.name
        return original_draw(path, draw_png, *figures)

    render.draw = draw
    try:
        render.render_reports(sample_build.database, out)
    finally:
        Figure.savefig, render.draw = savefig, original_draw
    return out, charts


def text(out: Path, slug: str | None = None) -> str:
    return ((out / slug / "profile.md") if slug else (out / "index.md")).read_text(encoding="utf-8")


def rows_after(page: str, header_start: str) -> list[list[str]]:
    lines = page.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_a_wall_time_reads_the_same_on_the_index_and_on_its_pages(drawn):
    shortest = min(run.wall for run in ORACLE_RUNS.values() if run.status == "completed" and run.wall)
    assert shortest < 3600  # so the report's one unit is minutes
    out, _ = drawn
    index = text(out)
    collections = {row[0].split("](")[1].split("/")[0]: row for row in rows_after(index, "| collection | runs")}
    for slug, row in collections.items():
        mean, median = row[3], row[4]
        assert mean.endswith(" min") and median.endswith(" min"), row
        assert f"mean {mean}, median {median}," in text(out, slug), slug
    # the baseline's mean on the page that compares with it reads as on the baseline's own page
    assert f"({collections[V3][3]} against {collections[V2][3]} mean wall time)" in text(out, V3)
    # the regressed task on the index reads as on its page's task table
    regressed = rows_after(index, "| collection | task | runs")
    page_tasks = {row[0]: row for row in rows_after(text(out, V4), "| task | runs | baseline runs")}
    for row in regressed:
        assert row[1:7] == page_tasks[row[1]][:6], row


def test_the_mean_wall_chart_labels_its_bars_in_its_axis_unit(drawn):
    out, charts = drawn
    for slug in (V2, V3, V4):
        chart = charts[(slug, "Mean wall time by task")]
        unit = UNIT_WORDS[re.search(r"\((\w+)\)", chart["xlabel"]).group(1)]
        assert unit == "min", chart["xlabel"]
        means = {row[0]: row[3] for row in rows_after(text(out, slug), "| task | runs analyzed")}
        # bars bottom to top: the slowest task on top
        assert chart["texts"] == list(reversed(list(means.values()))), slug
        assert all(label.endswith(f" {unit}") for label in chart["texts"])


def test_gpu_hours_have_three_significant_digits(drawn):
    out, _ = drawn
    cells = [row[3] for row in rows_after(text(out, V4), "| task | runs | runs naming their GPUs")]
    known = [cell for cell in cells if cell != "unknown"]
    assert known
    for cell in known:
        digits = cell.replace(".", "").lstrip("0")
        assert len(digits) == 3 or (float(cell) >= 1000 and "." not in cell), cell


def test_the_interval_chart_says_lighter_only_when_a_bar_is(drawn, sample_db):
    _, charts = drawn
    for slug in (V3, V4):
        collection = slug.replace("from-entangled-v2-", "from-entangled-v2/", 1)
        few = sample_db.execute(
            "select count(*) from cmp_collection_interval_positions where collection = ? and is_held_by_few_runs"
            " and difference_rank <= 12",
            [collection],
        ).fetchone()[0]
        chart = charts[(slug, "The intervals that moved most against the baseline")]
        assert ("lighter" in chart["xlabel"]) == (few > 0), (slug, few, chart["xlabel"])
        assert (0.45 in chart["alphas"]) == (few > 0), slug


def test_a_failed_run_is_marked_on_the_timeline(drawn):
    """v3's failed run, v3-sorting_algorithms-07 (the oracle's one failed v3 run), ends in a black
    cross on its row, and the axis label says what the black cross is."""
    _, charts = drawn
    failed = [run_id for run_id, run in ORACLE_RUNS.items() if run.status == "failed" and run_id.startswith("v3-")]
    assert failed == ["v3-sorting_algorithms-07"]
    chart = charts[(V3, "Runs over time, by task")]
    assert "black x failed" in chart["xlabel"]
    assert [chart["rows"][int(row)] for row in chart["black_crosses"]] == failed
