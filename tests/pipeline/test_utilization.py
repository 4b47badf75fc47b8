"""Utilization samples (issue 45): the utilization marts over tests/support/utilization_fixture.py,
every figure worked out by hand here. A sample stands for its GPU until the GPU's next sample, at
most 60 s later (var utilization_sample_hold_seconds); an interval is measured with at least 2
utilization samples per GPU inside it (var utilization_min_samples).

steady (2 GPUs from resources; samples every 20 s, 0..200; run_end at 220):
    run_start -> step_1 [0, 100): gpu 0 at 90 and gpu 1 at 50 for 100 s each (the sample at 80 holds
        to the one at 100): mean (90*100 + 50*100) / 200 = 70%, 10 samples, coverage 200/200 = 1;
        GPU-hours 100 * 2 / 3600 = 1/18, idle 1/18 * 0.30 = 1/60.
    step_1 -> step_2 [100, 200): 10% and 30%: mean 20%, idle 1/18 * 0.8 = 2/45.
    step_2 -> epoch_end [200, 200): 0 s. epoch_end -> run_end [200, 220): the two samples at 200
        (1 per GPU): not measured, though they cover it (coverage 40/40 = 1).
    run: GPU-hours 220 * 2 / 3600 = 11/90, measured 1/9, unmeasured 1/90; mean (70 + 20) / 2 = 45%;
        idle 1/60 + 2/45 = 11/180 (= 1/9 * 0.55).
gaps (1 GPU from the samples, gpu 0 of h1; run_start 0, checkpoint and run_end at 120):
    the sample at 0 (40%) holds to the one at 10 (10 s); at 10 (60%) to 10 + 60 = 70 (the next is
    at 100); at 100 (100%) to the interval's end, 120 (20 s). Mean (40*10 + 60*60 + 100*20) / 90
    = 66.67%; 3 samples (the copy at 10 counts once); coverage 90/120 = 0.75; GPU-hours 1/30, idle
    1/30 * (1/3) = 1/90. Memory: 2 GiB = 2048 MiB for 10 s and 2048 MiB for 60 s: 2048. Power:
    200000 mW = 200 W. Samples: 6 accepted (-30, 0, 10, 100, 170, 181), 1 duplicate; -30 is before
    run_start, 181 is 61 s after run_end (set aside), 170 is within the 60 s grace. Six bad
    samples, one per rule.
restart (1 GPU; crash after the checkpoint at 60, restart at 160, checkpoint and run_end at 220):
    run_start -> step_1 [0, 60): 50% (3 samples), GPU-hours 1/60, idle 1/120.
    step_1 -> run_start [60, 160): downtime 100 s: active 0 s, GPU-hours 0 (the samples at 60 and
        80 fall in no active time), not measured.
    run_start -> step_2 [160, 220): 80%, GPU-hours 1/60, idle 1/300.
    run: GPU-hours 1/30 (downtime is not GPU time), mean 65%, idle 1/120 + 1/300 = 7/600. A host
    sample at 30 (25% CPU, 3 GiB): one host sample, so no CPU mean; peak process memory 3072 MiB.
unsampled: no samples: no fct_run_utilization row, NULL figures on its intervals.
collection util: measured 1/9 + 1/30 + 1/30 = 8/45 GPU-hours, idle 11/180 + 1/90 + 7/600 = 151/1800,
    mean 100 * (1 - (151/1800) / (8/45)) = 52.8125%. Task t1 (steady, restart): measured 1/9 + 1/30 =
    13/90, idle 11/180 + 7/600 = 131/1800, mean 100 * (1 - 131/260) = 49.615%.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from runlens.report.render import render_reports
from tests.support import utilization_fixture
from tests.support.mart_snapshots import bump_mtime, snapshot
from tests.support.page_figures import clashes
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt


@prebuilt()
def utilization_build(builds: Prebuilds):
    """The marts over the utilization fixture."""
    root = builds.mktemp("utilization")
    build(PROJECT, utilization_fixture.FOLDER, root / "db" / DATABASE)
    return root / "db" / DATABASE


@pytest.fixture(scope="module")
def marts(utilization_build):
    connection = duckdb.connect(str(utilization_build), read_only=True)
    yield connection
    connection.close()


def one(marts, query: str):
    return marts.execute(query).fetchall()


def intervals(marts, run_id: str) -> dict[str, tuple]:
    rows = one(
        marts,
        "select label, active_seconds, gpus, gpus_source, gpu_samples, is_measured, sample_coverage,"
        " mean_gpu_utilization_pct, gpu_hours, idle_gpu_hours"
        f" from fct_run_interval_utilization where run_id = '{run_id}' order by interval_index",
    )
    return {row[0]: row[1:] for row in rows}


def test_each_interval_is_the_time_weighted_mean_of_its_held_samples(marts):
    steady = intervals(marts, "util-steady")
    assert steady["run_start -> step_1"] == pytest.approx((100, 2, "resources", 10, True, 1.0, 70, 1 / 18, 1 / 60))
    assert steady["step_1 -> step_2"] == pytest.approx((100, 2, "resources", 10, True, 1.0, 20, 1 / 18, 2 / 45))
    active, *_, measured, coverage, mean, gpu_hours, idle = steady["epoch_end -> run_end"]
    assert (active, measured, coverage, mean, idle) == (20, False, 1.0, None, None)
    assert gpu_hours == pytest.approx(20 * 2 / 3600)
    gaps = intervals(marts, "util-gaps")
    assert gaps["run_start -> step_1"] == pytest.approx((120, 1, "samples", 3, True, 0.75, 6000 / 90, 1 / 30, 1 / 90))


def test_downtime_is_never_gpu_time(marts):
    restart = intervals(marts, "util-restart")
    assert restart["run_start -> step_1"] == pytest.approx((60, 1, "resources", 3, True, 1.0, 50, 1 / 60, 1 / 120))
    active, _, _, samples, measured, _, mean, gpu_hours, idle = restart["step_1 -> run_start"]
    assert (active, samples, measured, mean, gpu_hours, idle) == (0, 0, False, None, 0, None)
    assert restart["run_start -> step_2"] == pytest.approx((60, 1, "resources", 3, True, 1.0, 80, 1 / 60, 1 / 300))


def test_a_measurement_holds_until_the_next_sample_of_the_same_measurement(tmp_path):
    """One GPU, run_start 0, checkpoint 60: utilization at 0 (80%) and 30 (40%), memory alone at 1 and
    31 (a logger that writes them apart). The memory samples do not end the utilization's span:
    (80 * 30 + 40 * 30) / 60 = 60%, not a mean over one-second spans."""
    raw = tmp_path / "raw"
    raw.mkdir()
    line, sample = utilization_fixture.line, utilization_fixture.sample
    lines = [
        line("split", "run_start", 0, collection="split", task="t"),
        sample("split", 0, {"gpu_utilization": 80}, gpu=0),
        sample("split", 1, {"gpu_memory_used": 100}, gpu=0),
        sample("split", 30, {"gpu_utilization": 40}, gpu=0),
        sample("split", 31, {"gpu_memory_used": 300}, gpu=0),
        line("split", "checkpoint", 60, step=1),
    ]
    (raw / "split.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build(PROJECT, raw, tmp_path / "db" / DATABASE)
    with duckdb.connect(str(tmp_path / "db" / DATABASE), read_only=True) as connection:
        row = connection.execute(
            "select gpu_samples, mean_gpu_utilization_pct, mean_gpu_memory_used_mib"
            " from fct_run_interval_utilization where interval_index = 1"
        ).fetchone()
    # memory: 100 MiB from 1 to 31, 300 MiB from 31 to 60: (100 * 30 + 300 * 29) / 59
    assert row == pytest.approx((4, 60, (100 * 30 + 300 * 29) / 59))


def test_memory_and_power_are_read_in_their_units(marts):
    ((memory, power),) = one(
        marts,
        "select mean_gpu_memory_used_mib, mean_gpu_power_watts from fct_run_interval_utilization"
        " where run_id = 'util-gaps' and interval_index = 1",
    )
    assert (memory, power) == pytest.approx((2048, 200))


def test_per_run(marts):
    rows = one(
        marts,
        "select run_id, samples, gpu_samples, host_samples, samples_before_start, samples_after_end, gpus,"
        " gpu_hours, measured_gpu_hours, mean_gpu_utilization_pct, idle_gpu_hours, peak_process_memory_used_mib"
        " from fct_run_utilization where collection = 'util' order by run_id",
    )
    assert [row[0] for row in rows] == ["util-gaps", "util-restart", "util-steady"]  # unsampled has no row
    got = {row[0]: row[1:] for row in rows}
    assert got["util-steady"] == pytest.approx((22, 22, 0, 0, 0, 2, 11 / 90, 1 / 9, 45, 11 / 180, None))
    assert got["util-gaps"] == pytest.approx((6, 6, 0, 1, 1, 1, 1 / 30, 1 / 30, 200 / 3, 1 / 90, None))
    assert got["util-restart"] == pytest.approx((9, 8, 1, 0, 0, 1, 1 / 30, 1 / 30, 65, 7 / 600, 3072))


def test_a_run_without_samples_has_null_never_zero(marts):
    rows = one(
        marts,
        "select gpus, gpu_hours, is_measured, mean_gpu_utilization_pct, idle_gpu_hours, sample_coverage"
        " from fct_run_interval_utilization where run_id = 'util-unsampled'",
    )
    assert rows == [(None, None, False, None, None, None)] * 2  # run_start -> step_1, step_1 -> run_end


def test_rollups_weight_by_measured_gpu_hours(marts):
    ((runs, measured, idle, mean),) = one(
        marts,
        "select runs, measured_gpu_hours, idle_gpu_hours, mean_gpu_utilization_pct from agg_collection_utilization"
        " where collection = 'util'",
    )
    assert (runs, measured, idle, mean) == pytest.approx((3, 8 / 45, 151 / 1800, 52.8125))
    tasks = dict(
        (row[0], row[1:])
        for row in one(
            marts,
            "select task, runs, measured_gpu_hours, idle_gpu_hours, mean_gpu_utilization_pct"
            " from agg_task_utilization where collection = 'util'",
        )
    )
    assert tasks["t1"] == pytest.approx((2, 13 / 90, 131 / 1800, 100 * (1 - 131 / 260)))
    assert tasks["t2"] == pytest.approx((1, 1 / 30, 1 / 90, 200 / 3))


def test_idle_gpu_hours_by_kind_share_the_collection_idle(marts):
    rows = one(
        marts,
        "select interval_kind, idle_gpu_hours, share_of_idle_gpu_hours from agg_collection_interval_kind_utilization"
        " where idle_gpu_hours is not null and collection = 'util' order by interval_kind",
    )
    # run_start -> checkpoint: steady 1/60, gaps 1/90, restart 1/120 + 1/300; checkpoint -> checkpoint:
    # steady 2/45
    first = 1 / 60 + 1 / 90 + 1 / 120 + 1 / 300
    total = 151 / 1800
    assert rows == [
        ("checkpoint -> checkpoint", pytest.approx(2 / 45), pytest.approx((2 / 45) / total)),
        ("run_start -> checkpoint", pytest.approx(first), pytest.approx(first / total)),
    ]


def test_against_the_baseline_the_parts_whose_utilization_moved(marts):
    """util-base (utilization_fixture.baseline): training 0 to 100 s at 60%, the final tail 100 to
    120 s at 20% (samples at 100 and 110: measured), over all (60 * 100 + 20 * 20) / 120 = 53.33%;
    idle per run: training 100 / 3600 * 0.4 = 1/90, all 1/90 + 20 / 3600 * 0.8 = 7/450.
    util: training holds every measured GPU-hour of its runs (no run of it has a measured tail):
    52.8125% over 640 GPU-seconds, idle 151/1800 over 3 runs = 151/5400 per run, as over all; its
    final tail is not measured (util-steady's one sample per GPU), so the tail did not move."""
    rows = {
        row[0]: row[1:]
        for row in one(
            marts,
            "select part, mean_gpu_utilization_pct, baseline_mean_gpu_utilization_pct, utilization_change_points,"
            " idle_gpu_hours_per_run, baseline_idle_gpu_hours_per_run from cmp_collection_utilization"
            " where collection = 'util'",
        )
    }
    assert set(rows) == {"all", "training", "final_tail"}
    assert rows["all"] == pytest.approx((52.8125, 160 / 3, 52.8125 - 160 / 3, 151 / 5400, 7 / 450))
    assert rows["training"] == pytest.approx((52.8125, 60, 52.8125 - 60, 151 / 5400, 1 / 90))
    assert rows["final_tail"] == (None, pytest.approx(20), None, None, pytest.approx(20 / 3600 * 0.8))


def test_bad_samples_are_rejected_with_the_rule_they_break(marts):
    rows = one(
        marts,
        "select reject_reason, reject_detail from fct_rejected_lines"
        " where file_path = 'util-gaps.jsonl' order by line_number",
    )
    assert rows == [
        ("bad_sample", "gpu is not an integer >= 0"),
        ("bad_sample", "the unit of gpu_memory_used is none of MiB, B, KiB, GiB, MB, GB"),
        ("bad_sample", "cpu_utilization is a host measurement: a sample that names a gpu cannot hold it"),
        (
            "bad_sample",
            "no measurement runlens reads (gpu_utilization, gpu_memory_used, gpu_memory_utilization, gpu_power,"
            " cpu_utilization, host_memory_utilization, process_memory_used)",
        ),
        ("bad_sample", "gpu_utilization is above 100"),
        ("bad_sample", "measurements is not an object"),
    ]


def test_every_sample_line_is_accounted_for(marts):
    # gaps.jsonl: 3 events + 6 samples accepted, 1 duplicate, 6 rejected: 16 lines
    assert one(
        marts,
        "select lines_read, accepted, samples, duplicates, rejected from agg_file_data_quality"
        " where file_path = 'util-gaps.jsonl'",
    ) == [(16, 9, 6, 1, 6)]


def test_samples_move_no_other_figure(marts):
    # the runs' wall time and intervals are those of their markers alone: no sample is an event
    rows = one(marts, "select run_id, wall_seconds from fct_runs order by run_id")
    assert rows == [
        ("util-base-steady", 120),
        ("util-gaps", 120),
        ("util-restart", 220),
        ("util-steady", 220),
        ("util-unsampled", 100),
    ]
    assert one(marts, "select count(*) from fct_events where event_type = 'sample'") == [(0,)]


def test_the_committed_fixture_is_what_its_generator_writes(tmp_path):
    utilization_fixture.write(tmp_path)
    for path in sorted(utilization_fixture.FOLDER.iterdir()):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in utilization_fixture.FOLDER.iterdir())


def test_the_page_says_how_busy_the_gpus_were_and_where_the_idle_gpu_hours_went(utilization_build, tmp_path):
    """The answer's figures, from the ones above: 52.8% busy over 8/45 = 0.178 measured GPU-hours, of
    11/90 + 1/30 + 1/30 = 17/90 = 0.189 held by 3 runs; 151/1800 = 0.084 idle; the idlest kind is
    checkpoint -> checkpoint (steady's 2/45 = 0.044, 20% busy): 2/45 / (151/1800) = 53.0% of the idle
    GPU-hours. One figure per name on the page (tests/support/page_figures.py)."""
    render_reports(utilization_build, tmp_path)
    page = (tmp_path / "util" / "profile.md").read_text(encoding="utf-8")
    assert (
        "- **GPU utilization**: the GPUs were 52.8% busy over 0.178 measured GPU-hours (of 0.189 GPU-hours held by"
        " 3 runs with samples): 0.084 idle GPU-hours, the most in `checkpoint -> checkpoint` intervals, 53.0% of"
        " the idle GPU-hours (20.0% busy)."
    ) in page
    assert "| `checkpoint -> checkpoint` | 1 | 0.056 | 0.056 | 20.0% | 0.044 | 53.0% |" in page
    assert "| `epoch_end -> run_end` | 1 | 0.011 | 0 | not measured | n/a | n/a |" in page
    assert "accepted events: 53 (37 of them utilization samples)" in page  # 22 + 6 + 9 samples
    assert "GPU utilization (no run carries" not in page
    # util shares one task with its baseline (t1): said in the singular
    assert "| mean wall time on the task both ran, at this mix |" in page
    assert clashes(page) == []


def test_a_growing_file_of_samples_refreshes_as_a_fresh_build_would(tmp_path):
    """A live run's file grows (more samples, a checkpoint): the incremental refresh gives the same
    marts as a full build of the grown folder (mart_snapshots.snapshot: every mart, computed_at
    aside), and the run's utilization so far: 2 GPUs at 60% for its first 60 s, then 90% up to the
    checkpoint at 120 s: (60 * 60 + 90 * 60) / 120 = 75%, idle 120 * 2 / 3600 * 0.25 = 1/60."""
    raw = tmp_path / "raw"
    shutil.copytree(utilization_fixture.FOLDER, raw)
    live = raw / "util-live.jsonl"
    first = [utilization_fixture.line("util-live", "run_start", 0, collection="util", task="t1")]
    first += [
        utilization_fixture.sample("util-live", at, {"gpu_utilization": 60}, gpu=gpu)
        for at in (0, 20, 40)
        for gpu in (0, 1)
    ]
    live.write_text("\n".join(first) + "\n", encoding="utf-8")
    incremental = tmp_path / "incremental" / DATABASE
    build(PROJECT, raw, incremental)
    more = [
        utilization_fixture.sample("util-live", at, {"gpu_utilization": 90}, gpu=gpu)
        for at in (60, 80, 100)
        for gpu in (0, 1)
    ]
    more.append(utilization_fixture.line("util-live", "checkpoint", 120, step=1))
    with live.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(more) + "\n")
    bump_mtime(live)
    build(PROJECT, raw, incremental)
    full = tmp_path / "full" / DATABASE
    build(PROJECT, raw, full)
    assert snapshot(incremental) == snapshot(full)
    with duckdb.connect(str(incremental), read_only=True) as marts:
        row = marts.execute(
            "select mean_gpu_utilization_pct, idle_gpu_hours from fct_run_interval_utilization"
            " where run_id = 'util-live' and interval_index = 1"
        ).fetchone()
    assert row == pytest.approx((75, 1 / 60))


def test_the_parts_of_the_sessions_are_measured_as_intervals_are(marts):
    """fct_run_sessions places the parts: no run writes train_start, so no start-up lies in time.
    util-steady: training 0 to the epoch end at 200 s (90/50% for 100 s, 10/30% for 100 s: mean 45%,
    idle 400 / 3600 * 0.55 = 11/180), final tail 200 to 220 s (one sample per GPU: not measured).
    util-restart: training 0 to the checkpoint at 60 s that the restart went back to (50%), nothing
    redone (the crash came right after it), and 160 to 220 s (80%): no downtime anywhere."""
    rows = marts.execute(
        "select run_id, session_index, part, active_seconds, is_measured, mean_gpu_utilization_pct, idle_gpu_hours"
        " from fct_run_goodput_part_utilization where run_id in ('util-steady', 'util-restart')"
        " order by run_id, session_index, part"
    ).fetchall()
    assert rows == [
        ("util-restart", 1, "training", 60, True, pytest.approx(50), pytest.approx(60 / 3600 * 0.5)),
        ("util-restart", 2, "training", 60, True, pytest.approx(80), pytest.approx(60 / 3600 * 0.2)),
        ("util-steady", 1, "final_tail", 20, False, None, None),
        ("util-steady", 1, "training", 200, True, pytest.approx(45), pytest.approx(11 / 180)),
    ]


def test_each_task_by_kind_of_interval_shares_the_task_idle(marts):
    """agg_task_interval_kind_utilization: the collection's rollup by kind, within each task, its
    shares of the task's idle GPU-hours. t1 (steady, restart; util-unsampled has no GPU samples):
    run_start -> checkpoint holds steady's first interval (1/18 GPU-hours at 70%, idle 1/60) and
    restart's two (1/60 at 50%, idle 1/120; 1/60 at 80%, idle 1/300): 1/18 + 1/30 = 4/45 GPU-hours,
    idle 17/600, mean 100 x (1 - (17/600) / (4/45)) = 68.125%; checkpoint -> checkpoint is steady's
    second (1/18 at 20%, idle 2/45); epoch_end -> run_end steady's tail (20 s x 2 GPUs = 1/90, not
    measured). t1's idle: 17/600 + 2/45 = 131/1800 (agg_task_utilization's), so the shares are
    51/131 and 80/131. t2 (gaps): run_start -> checkpoint alone, 1/30 at 66.67%, idle 1/90, all of
    t2's idle. The kinds that hold no GPU-hours have rows of 0: steady's checkpoint -> epoch_end
    (200 to 200 s), restart's downtime (`... -> run_start`) and its checkpoint -> run_end (220 to
    220 s), gaps' checkpoint -> run_end (120 to 120 s)."""
    rows = one(
        marts,
        "select task, interval_kind, runs, gpu_hours, measured_gpu_hours, unmeasured_gpu_hours,"
        " mean_gpu_utilization_pct, idle_gpu_hours, share_of_idle_gpu_hours"
        " from agg_task_interval_kind_utilization where collection = 'util' and gpu_hours > 0",
    )
    assert {row[:2]: row[2:] for row in rows} == {
        ("t1", "checkpoint -> checkpoint"): pytest.approx((1, 1 / 18, 1 / 18, 0, 20, 2 / 45, 80 / 131)),
        ("t1", "epoch_end -> run_end"): pytest.approx((1, 1 / 90, 0, 1 / 90, None, None, None)),
        ("t1", "run_start -> checkpoint"): pytest.approx((2, 4 / 45, 4 / 45, 0, 68.125, 17 / 600, 51 / 131)),
        ("t2", "run_start -> checkpoint"): pytest.approx((1, 1 / 30, 1 / 30, 0, 200 / 3, 1 / 90, 1)),
    }
    zero = one(
        marts,
        "select task, interval_kind from agg_task_interval_kind_utilization"
        " where collection = 'util' and gpu_hours = 0 and idle_gpu_hours is null order by all",
    )
    assert zero == [
        ("t1", "... -> run_start"),
        ("t1", "checkpoint -> epoch_end"),
        ("t1", "checkpoint -> run_end"),
        ("t2", "checkpoint -> run_end"),
    ]
    # every kind's GPU-hours add up to the task's (agg_task_utilization): 4/45 + 1/18 + 1/90 = 7/45
    ((held,),) = one(marts, "select gpu_hours from agg_task_utilization where collection = 'util' and task = 't1'")
    assert held == pytest.approx(7 / 45)
    (kinds_held,) = one(
        marts,
        "select sum(gpu_hours) from agg_task_interval_kind_utilization where collection = 'util' and task = 't1'",
    )[0]
    assert kinds_held == pytest.approx(7 / 45)


def test_each_task_by_part_of_the_sessions_shares_the_task_idle(marts):
    """agg_task_goodput_part_utilization, from the parts worked out above
    (test_the_parts_of_the_sessions_are_measured_as_intervals_are). t1: training is steady's 200 s x
    2 GPUs (1/9 GPU-hours at 45%, idle 11/180) and restart's two 60 s (1/60 at 50%, 1/60 at 80%):
    13/90 GPU-hours, idle 11/180 + 1/120 + 1/300 = 131/1800, mean 100 x (1 - 131/260) = 49.615%,
    all of t1's idle; the final tail, steady's 20 s x 2 GPUs = 1/90, not measured. t2: util-gaps
    has no epoch_end, so no final tail: training 0 to 120 s, 1/30 at 66.67%, idle 1/90."""
    rows = one(
        marts,
        "select task, part, runs, gpu_hours, measured_gpu_hours, mean_gpu_utilization_pct, idle_gpu_hours,"
        " share_of_idle_gpu_hours from agg_task_goodput_part_utilization where collection = 'util'",
    )
    assert {row[:2]: row[2:] for row in rows} == {
        ("t1", "final_tail"): pytest.approx((1, 1 / 90, 0, None, None, None)),
        ("t1", "training"): pytest.approx((2, 13 / 90, 13 / 90, 100 * (1 - 131 / 260), 131 / 1800, 1)),
        ("t2", "training"): pytest.approx((1, 1 / 30, 1 / 30, 200 / 3, 1 / 90, 1)),
    }


def test_the_page_gives_each_task_a_subsection_the_idlest_first(utilization_build, tmp_path):
    """util has two tasks with measured GPU-hours: t1 (idle 131/1800 = 0.073) before t2 (1/90 =
    0.011), each a subsection whose table splits its GPU-hours by kind of interval and by part of
    the sessions, from the task figures above. t1 by kind: checkpoint -> checkpoint 20%, 1/18 =
    0.056 held, 2/45 = 0.044 idle, 80/131 = 61.1% of t1's idle; run_start -> checkpoint 68.125%
    (68.1%), 4/45 = 0.089, 17/600 = 0.028, 51/131 = 38.9%; epoch_end -> run_end 1/90 = 0.011 not
    measured. By part: training 49.6%, 13/90 = 0.144, 0.073, all of it; final_tail 0.011 not
    measured. t1 splits into several kinds: a chart; t2 into one kind and one part: none. util-base
    has one task: no subsection (the collection's tables are that task's)."""
    render_reports(utilization_build, tmp_path)
    page = (tmp_path / "util" / "profile.md").read_text(encoding="utf-8")
    assert page.index("### t1") < page.index("### t2") < page.index("## Against the baseline")
    t1 = page[page.index("### t1") : page.index("### t2")]
    assert (
        "| kind of interval | `checkpoint -> checkpoint` | 20.0% | 0.056 | 0.044 | 61.1% |\n"
        "| kind of interval | `run_start -> checkpoint` | 68.1% | 0.089 | 0.028 | 38.9% |\n"
        "| kind of interval | `epoch_end -> run_end` | not measured | 0.011 | n/a | n/a |\n"
        "| part of the sessions | `training` | 49.6% | 0.144 | 0.073 | 100.0% |\n"
        "| part of the sessions | `final_tail` | not measured | 0.011 | n/a | n/a |\n"
    ) in t1
    assert "![GPU-hours of task t1: busy and idle](gpu_utilization_of_task_t1.png)" in t1
    assert (tmp_path / "util" / "gpu_utilization_of_task_t1.png").is_file()
    assert not (tmp_path / "util" / "gpu_utilization_of_task_t2.png").exists()
    assert "left out:" not in page
    assert clashes(page) == []
    base = (tmp_path / "util-base" / "profile.md").read_text(encoding="utf-8")
    assert "## GPU utilization" in base and "### " not in base


def test_the_page_counts_the_tasks_it_leaves_out(utilization_build, tmp_path, monkeypatch):
    """With room for one task, the page shows t1 (the idlest) and says it leaves t2 out; a
    rendering that no longer draws a task's chart removes it, and never a file runlens did not
    write."""
    render_reports(utilization_build, tmp_path)
    folder = tmp_path / "util"
    (folder / "gpu_utilization_of_task_gone.png").write_bytes(b"a task's chart of an earlier build")
    (folder / "gpu_utilization_of_task_Notes.png").write_bytes(b"not runlens's: no slug has a capital")
    monkeypatch.setattr("runlens.report.data.SHOWN_UTILIZATION_TASKS", 1)
    render_reports(utilization_build, tmp_path)
    page = (folder / "profile.md").read_text(encoding="utf-8")
    assert "### t1" in page and "### t2" not in page
    assert (
        "Shown: the 1 task with the most idle GPU-hours; left out: 1 more task with measured GPU-hours,"
        " every one in the by-task table above."
    ) in page
    assert "| t2 | 1 |" in page  # the by-task table still lists it
    assert not (folder / "gpu_utilization_of_task_gone.png").exists()
    assert (folder / "gpu_utilization_of_task_Notes.png").is_file()
    assert (folder / "gpu_utilization_of_task_t1.png").is_file()
