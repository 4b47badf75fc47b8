"""The sample's live collection (scripts/generate_sample.py, continuous-v4-live) as of the sample's
as-of time, built by the real pipeline, against the independent oracle (tests/support/oracle.py: the live
definitions read again in plain Python, percentiles from statistics.quantiles) and against what the
collection was written to show."""

from datetime import UTC

import pytest

from runlens.raw_logs.as_of import SAMPLE_AS_OF, parse_as_of
from tests.support.oracle import collection_stretches, concurrency, live_runs, read_events, timelines
from tests.support.pipeline import SAMPLE

V4 = "from-entangled-v2/continuous-v4-live"
V3 = "from-entangled-v2/continuous-v3-beta-schedule"
AS_OF = parse_as_of(SAMPLE_AS_OF).replace(tzinfo=UTC)
LINES = timelines(read_events(SAMPLE))
LIVE = live_runs(LINES, AS_OF)


def rows(sample_db, sql, *params):
    cursor = sample_db.cursor()
    try:
        result = cursor.execute(sql, list(params))
        names = [column[0] for column in result.description]
        return [dict(zip(names, row, strict=True)) for row in result.fetchall()]
    finally:
        cursor.close()


def test_the_live_collection_reads_as_written(sample_db):
    """8 completed, 1 failed; running at step_600, step_200, step_800 (resumed) and step_1000; one
    stalled at step_1000 for an hour (past its threshold, short of its task's longest run); the v3
    run that never ended went silent days before: abandoned, and v3 is no live sweep."""
    found = {row["run_id"]: row for row in rows(sample_db, "select * from fct_run_live_status")}
    assert {run_id: (row["live_status"], row["last_marker_label"]) for run_id, row in found.items()} == {
        "v4-base_conversion-05": ("running", "step_600"),
        "v4-base_conversion-06": ("stalled", "step_1000"),
        "v4-grid_pathfinding-04": ("running", "step_200"),
        "v4-grid_pathfinding-05": ("running", "step_800"),
        "v4-list_summation-03": ("running", "step_1000"),
        "v3-multidigit_addition-07": ("abandoned", "step_1000"),
    }
    assert found["v4-base_conversion-06"]["silent_seconds"] == pytest.approx(3600, abs=1e-3)
    for run_id in ("v4-base_conversion-06", "v3-multidigit_addition-07"):  # no finish to estimate
        assert (found[run_id]["remaining_seconds"], found[run_id]["estimated_finish_at"]) == (None, None)
    assert found["v4-grid_pathfinding-05"]["restarts"] == 1
    # list_summation has one completed run: its live run is estimated from the whole collection
    assert (found["v4-list_summation-03"]["peer_set"], found["v4-list_summation-03"]["peer_runs"]) == ("collection", 8)
    assert (found["v4-base_conversion-05"]["peer_set"], found["v4-base_conversion-05"]["peer_runs"]) == ("task", 4)
    progress = rows(sample_db, "select * from agg_collection_progress where collection = ?", V4)[0]
    assert (
        progress["runs_completed"],
        progress["runs_failed"],
        progress["runs_running"],
        progress["runs_stalled"],
        progress["runs_abandoned"],
        progress["is_live"],
    ) == (8, 1, 4, 1, 0, True)
    v3 = rows(sample_db, "select * from agg_collection_progress where collection = ?", V3)[0]
    assert (v3["runs_running"], v3["runs_stalled"], v3["runs_abandoned"], v3["is_live"]) == (0, 0, 1, False)


def test_every_live_run_matches_the_oracle(sample_db):
    found = {row["run_id"]: row for row in rows(sample_db, "select * from fct_run_live_status")}
    assert set(found) == set(LIVE)
    for run_id, expected in LIVE.items():
        row = found[run_id]
        assert (row["live_status"], row["last_marker_label"], row["peer_set"], row["peer_runs"]) == (
            expected.live_status,
            expected.last_marker_label,
            expected.peer_set,
            expected.peer_runs,
        ), run_id
        assert row["silent_seconds"] == pytest.approx(expected.silent_seconds, abs=1e-3), run_id
        assert row["stall_threshold_seconds"] == pytest.approx(expected.stall_threshold_seconds, abs=1e-3), run_id
        assert row["abandon_threshold_seconds"] == pytest.approx(expected.abandon_threshold_seconds, abs=1e-3), run_id
        assert row["pace_ratio"] == pytest.approx(expected.pace_ratio, rel=1e-9), run_id
        got = (row["remaining_low_seconds"], row["remaining_seconds"], row["remaining_high_seconds"])
        if expected.remaining is None:
            assert got == (None, None, None), run_id
        else:
            assert got == pytest.approx(expected.remaining, abs=1e-3), run_id


def test_the_sweep_eta_matches_the_oracle(sample_db):
    progress = rows(sample_db, "select * from agg_collection_progress where collection = ?", V4)[0]
    running = [live for run_id, live in LIVE.items() if run_id.startswith("v4-") and live.live_status == "running"]
    last_finish = max(live.remaining[1] for live in running)
    assert (progress["last_finish_at"].replace(tzinfo=UTC) - AS_OF).total_seconds() == pytest.approx(
        last_finish, abs=1e-3
    )
    finished = sum(line.active for line in LINES.values() if line.collection == V4 and line.status != "incomplete")
    spent = finished + sum(live.running_seconds for run_id, live in LIVE.items() if run_id.startswith("v4-"))
    remaining = sum(live.remaining[1] for live in running)
    assert progress["spent_seconds"] == pytest.approx(spent, abs=1e-3)
    assert progress["spent_share"] == pytest.approx(spent / (spent + remaining), rel=1e-9)
    assert 0.5 < progress["spent_share"] < 1


@pytest.mark.parametrize("collection", [V4, V3])
def test_span_and_concurrency_match_the_oracle(sample_db, collection):
    span = rows(sample_db, "select * from agg_collection_span where collection = ?", collection)[0]
    per_run = collection_stretches(LINES, LIVE, AS_OF, collection)
    first, last, peak, run_seconds = concurrency([stretch for runs in per_run.values() for stretch in runs])
    assert span["first_started_at"].replace(tzinfo=UTC).timestamp() == pytest.approx(first, abs=1e-6)
    assert span["span_ended_at"].replace(tzinfo=UTC).timestamp() == pytest.approx(last, abs=1e-6)
    assert span["peak_concurrent_runs"] == peak
    assert span["active_seconds"] == pytest.approx(run_seconds, abs=1e-3)
    assert span["mean_concurrent_runs"] == pytest.approx(run_seconds / (last - first), rel=1e-9)
    # a running run counts with its expected length: so far plus its estimated remaining seconds
    lengths = {
        run_id: runs[-1][1]
        - runs[0][0]
        + (LIVE[run_id].remaining[1] if LIVE.get(run_id) and LIVE[run_id].remaining else 0)
        for run_id, runs in per_run.items()
    }
    longest = min(lengths, key=lambda run_id: (-lengths[run_id], run_id))  # ties: the first run_id
    assert (span["longest_run_id"], span["longest_run_seconds"]) == (longest, pytest.approx(lengths[longest], abs=1e-3))
    assert span["is_open"] == (collection == V4)


def test_gpu_hours_match_the_oracle_and_stay_unknown_when_runs_do_not_say(sample_db):
    tasks = {row["task"]: row for row in rows(sample_db, "select * from agg_task_gpu_hours where collection = ?", V4)}
    for task in ("base_conversion", "grid_pathfinding"):
        expected = 0.0
        for line in LINES.values():
            if line.collection == V4 and line.task == task:
                active = LIVE[line.run_id].running_seconds if line.run_id in LIVE else line.active
                expected += line.gpus * active / 3600
        assert tasks[task]["gpu_hours"] == pytest.approx(expected, abs=1e-6), task
    assert tasks["list_summation"]["gpu_hours"] is None and tasks["list_summation"]["runs_with_gpus"] == 0
    span = rows(sample_db, "select gpu_hours, runs_with_gpus from agg_collection_span where collection = ?", V4)[0]
    assert span == {"gpu_hours": None, "runs_with_gpus": 11}


def test_the_report_shows_the_live_sweep_span_and_timeline(sample_build, tmp_path):
    """The live collection's profile: "Still running" with the sweep's ETA, the stalled run first
    and the running runs by estimated finish; "Span and concurrency" with GPU-hours unknown for the
    collection; the timeline chart; the index's running and stalled counts."""
    from runlens.report.render import render_reports

    render_reports(sample_build.database, tmp_path)
    page = (tmp_path / "from-entangled-v2-continuous-v4-live" / "profile.md").read_text(encoding="utf-8")
    live = page[page.index("## Still running") : page.index("## Against the baseline")]
    assert "4 running, 1 stalled" in live
    assert "- 4 runs still running: the last will likely finish at 2025-03-10 " in page  # the answer, first
    order = [line.split("|")[1].strip() for line in live.splitlines() if line.startswith("| `v4-")]
    assert order[0] == "`v4-base_conversion-06`" and "**stalled**" in live
    assert sorted(order[1:]) == sorted(
        f"`{run_id}`" for run_id, run in LIVE.items() if run_id.startswith("v4-") and run.live_status == "running"
    )
    finishes = sorted((run.remaining[1], run_id) for run_id, run in LIVE.items() if run.live_status == "running")
    assert order[1:] == [f"`{run_id}`" for _, run_id in finishes]
    span = page[page.index("## Span and concurrency") :]
    assert "- active GPU-hours: unknown (11 of 14 runs name their GPUs in `resources.gpus`)" in span
    assert "![Runs over time, by task](timeline.png)" in span
    png = (tmp_path / "from-entangled-v2-continuous-v4-live" / "timeline.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "(from-entangled-v2-continuous-v4-live/profile.md) | 4 | 1 | 0 | 2025-03-10 " in index
    v2 = (tmp_path / "from-entangled-v2-continuous-v2" / "profile.md").read_text(encoding="utf-8")
    assert "## Still running" not in v2 and "## Span and concurrency" in v2
