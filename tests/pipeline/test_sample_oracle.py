"""The bundled sample, built by the real pipeline, against the independent oracle (tests/support/oracle.py)
and against what the sample is meant to show (scripts/generate_sample.py, the reference profile)."""

import statistics

import pytest

from runlens.raw_logs.as_of import SAMPLE_AS_OF, parse_as_of
from tests.support.oracle import (
    collection_stats,
    oracle_parts,
    oracle_throughput,
    percentile,
    pre_epoch_positions,
    read_events,
    runs_from,
)
from tests.support.pipeline import SAMPLE

V3 = "from-entangled-v2/continuous-v3-beta-schedule"
V2 = "from-entangled-v2/continuous-v2"
ORACLE_RUNS = runs_from(read_events(SAMPLE))


def test_every_run_matches_the_oracle(sample_db):
    rows = sample_db.sql(
        "select run_id, status, measurement_source, wall_seconds, pre_tail_seconds, tail_seconds,"
        " tail_share, downtime_seconds from fct_runs"
    ).fetchall()
    assert {row[0] for row in rows} == set(ORACLE_RUNS)
    for run_id, status, source, wall, pre_tail, tail, share, downtime in rows:
        expected = ORACLE_RUNS[run_id]
        assert (status, source) == (expected.status, expected.source), run_id
        for got, want in [
            (wall, expected.wall),
            (pre_tail, expected.pre_tail),
            (tail, expected.tail),
            (share, expected.tail_share),
            (downtime, expected.downtime),
        ]:
            assert got == pytest.approx(want, abs=1e-3), run_id


def test_every_interval_matches_the_oracle(sample_db):
    rows = sample_db.sql("select run_id, label, seconds from fct_run_intervals order by run_id, interval_index")
    found: dict[str, list] = {}
    for run_id, label, seconds in rows.fetchall():
        found.setdefault(run_id, []).append((label, seconds))
    for run_id, run in ORACLE_RUNS.items():
        got = found.get(run_id, [])
        assert [label for label, _ in got] == [label for label, _ in run.intervals], run_id
        assert [s for _, s in got] == pytest.approx([s for _, s in run.intervals], abs=1e-3), run_id


@pytest.mark.parametrize("collection", [V3, V2])
def test_collection_rollup_matches_the_oracle(sample_db, collection):
    cursor = sample_db.execute("select * from agg_collection_runtime where collection = ?", [collection])
    row = dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))
    for column, expected in collection_stats(ORACLE_RUNS, collection).items():
        assert row[column] == pytest.approx(expected, abs=1e-6), column


def test_sample_shows_what_the_reference_profile_shows(sample_db):
    v3 = sample_db.execute(
        "select runs_analyzed, measurement_source, mean_wall_seconds / 3600, mean_tail_share"
        " from agg_collection_runtime where collection = ?",
        [V3],
    ).fetchone()
    assert v3[0] == 36 and v3[1] == "event_log"
    assert 1.1 < v3[2] < 1.4 and 0.08 < v3[3] < 0.16
    comparison = sample_db.execute(
        "select measurement_source, baseline_measurement_source, sources_match, speedup"
        " from cmp_collection_runtime where collection = ?",
        [V3],
    ).fetchone()
    assert comparison[:3] == ("event_log", "profiler", False) and comparison[3] > 5
    differing = {
        row[0] for row in sample_db.execute("select config_key from cmp_collection_config_differences").fetchall()
    }
    assert "eval_generation_num_samples" in differing
    top_section = sample_db.execute(
        "select section from agg_collection_profile_sections where collection = ? order by share_of_wall desc limit 1",
        [V2],
    ).fetchone()
    assert top_section == ("router_sampled_eval_generation",)


def test_sample_has_faulty_lines(sample_db):
    read, rejected, duplicates = sample_db.execute(
        "select sum(lines_read), sum(rejected), sum(duplicates) from agg_file_data_quality"
    ).fetchone()
    assert rejected >= 5 and duplicates >= 1 and read > 600


def test_sample_has_other_events_and_a_likely_typo(sample_db):
    # scripts/generate_sample.py: the first v3 run of each of the 6 tasks logs a metric line after
    # each of its 7 checkpoints (steps 200..1400), and zz-faults holds one heartbeat and one
    # Run_End, the typo of run_end
    other = dict(sample_db.execute("select event_type, other_event_lines from agg_build_other_events").fetchall())
    assert other == {"metric": 6 * 7, "heartbeat": 1}
    runs = sample_db.execute("select runs from agg_build_other_events where event_type = 'metric'").fetchone()
    assert runs == (6,)
    total = sample_db.execute("select sum(other_events) from agg_file_data_quality").fetchone()
    assert total == (43,)
    typos = sample_db.execute("select event_name, resembles_event_type from agg_build_unknown_event_names").fetchall()
    assert typos == [("Run_End", "run_end")]


def test_the_build_records_its_raw_folder_and_as_of_time(sample_db):
    """dim_build: the sample's absolute path, and the sample's as-of time, which the tests' builds pin
    (tests/support/pipeline.py), as `runlens build` does for the sample."""
    raw_dir, started, as_of, source = sample_db.execute(
        "select raw_dir, build_started_at, as_of_at, as_of_source from dim_build"
    ).fetchone()
    assert raw_dir == str(SAMPLE.resolve())
    assert (as_of, source) == (parse_as_of(SAMPLE_AS_OF), "pinned")
    assert started > as_of


def test_difference_from_the_baseline_splits_as_the_oracle_says(sample_db):
    """v3 against v2: each part's mean on both sides and its share of the difference in mean wall
    time, worked out from the oracle's runs; the shares add up to 1."""
    sides = {
        collection: [
            oracle_parts(run)
            for run in ORACLE_RUNS.values()
            if run.collection == collection and run.status == "completed"
        ]
        for collection in (V3, V2)
    }
    mean = {c: {p: sum(r[p] for r in runs) / len(runs) for p in runs[0]} for c, runs in sides.items()}
    difference = sum(mean[V3].values()) - sum(mean[V2].values())
    rows = sample_db.execute(
        "select part, mean_seconds, baseline_mean_seconds, share_of_difference, both_sides_have_markers"
        " from cmp_collection_wall_time_parts where collection = ? and scope = 'all_tasks' order by part_order",
        [V3],
    ).fetchall()
    assert [row[0] for row in rows] == ["opening_block", "later_windows", "final_tail", "other"]
    for part, current, baseline, share, markers in rows:
        assert markers is True
        assert current == pytest.approx(mean[V3][part], abs=1e-6), part
        assert baseline == pytest.approx(mean[V2][part], abs=1e-6), part
        assert share == pytest.approx((mean[V3][part] - mean[V2][part]) / difference, abs=1e-9), part
    assert sum(row[3] for row in rows) == pytest.approx(1.0)


def test_regressions_are_the_tasks_the_oracle_finds_slower(sample_db):
    """A task regressed when its mean is more than 10% above the baseline's with 3 or more analysed
    runs on both sides: in the sample only v4's base_conversion (generated 25% slower than v3)."""
    v4 = "from-entangled-v2/continuous-v4-live"
    expected = set()
    for current, baseline in ((V3, V2), (v4, V3)):
        walls = {
            collection: {
                task: [
                    run.wall
                    for run in ORACLE_RUNS.values()
                    if run.collection == collection and run.task == task and run.status == "completed"
                ]
                for task in {run.task for run in ORACLE_RUNS.values() if run.collection == collection}
            }
            for collection in (current, baseline)
        }
        for task, runs in walls[current].items():
            analysed, base_analysed = runs, walls[baseline].get(task, [])
            if len(analysed) >= 3 and len(base_analysed) >= 3:
                if sum(analysed) / len(analysed) > 1.1 * sum(base_analysed) / len(base_analysed):
                    expected.add((current, task))
    found = set(sample_db.execute("select collection, task from cmp_task_runtime where is_regression").fetchall())
    assert found == expected == {(v4, "base_conversion")}
    chain = sample_db.execute(
        "select step_collection, step_regressed_tasks from cmp_collection_version_chains"
        " where chain_collection = ? order by step",
        [v4],
    ).fetchall()
    assert chain == [(v4, 1), (V3, 0), (V2, 0)]


def test_throughput_per_task_matches_the_oracle(sample_db):
    got = {
        (collection, task): (runs, per_hour, per_100)
        for collection, task, runs, per_hour, per_100 in sample_db.execute(
            "select collection, task, runs, mean_steps_per_active_hour, mean_seconds_per_100_steps"
            " from agg_task_throughput"
        ).fetchall()
    }
    expected: dict[tuple, list] = {}
    for run in ORACLE_RUNS.values():
        if run.status == "completed" and run.collection is not None:
            figures = oracle_throughput(run)
            if figures[0] is not None:
                expected.setdefault((run.collection, run.task), []).append(figures)
    assert set(got) == set(expected)
    for key, figures in expected.items():
        runs, per_hour, per_100 = got[key]
        assert runs == len(figures), key
        assert per_hour == pytest.approx(sum(f[0] for f in figures) / len(figures), rel=1e-9), key
        assert per_100 == pytest.approx(sum(f[1] for f in figures) / len(figures), rel=1e-9), key


def test_stragglers_match_the_oracle(sample_db):
    """Each analyzed run against its task, worked out from the oracle's runs with the rule of
    def_stragglers: wall time over the task's median (3 runs or more) and over its peers' (the
    runs of the task with as many pre-epoch positions, 3 or more), and per pre-epoch interval a
    robust z-score against the same position in the task (median, MAD floored at 10% of the
    median and at 1 s, 3 runs or more at the position; positions skip a restart's downtime); a
    straggler past 1.5x its peers' median with a robust z-score of its wall over 3.5 among them
    (the peers' MAD, floored alike), or with an outlier: a z-score over 3.5 with an excess over the
    position's median times the run's own pace (the median of its scored intervals over their
    positions' medians) of at least 2% of the run's wall time and 10 s. The worst interval is the
    highest-scored outlier, else the highest score."""

    by_task: dict[tuple, list] = {}
    for run in ORACLE_RUNS.values():
        if run.status == "completed" and run.collection is not None:
            by_task.setdefault((run.collection, run.task), []).append(run)
    expected = {}
    for runs in by_task.values():
        median_wall = statistics.median(run.wall for run in runs)
        pre_epoch = {}
        for run in runs:
            pre_epoch[run.run_id] = [seconds for _, seconds in pre_epoch_positions(run.intervals)]
        positions: dict[int, list[float]] = {}
        for seconds in pre_epoch.values():
            for index, value in enumerate(seconds, start=1):
                positions.setdefault(index, []).append(value)
        for run in runs:
            ratio = run.wall / median_wall if len(runs) >= 3 and median_wall > 0 else None
            peers = [peer.wall for peer in runs if len(pre_epoch[peer.run_id]) == len(pre_epoch[run.run_id])]
            peer_median = statistics.median(peers)
            peer_ratio = run.wall / peer_median if len(peers) >= 3 and peer_median > 0 else None
            peer_mad = statistics.median(abs(wall - peer_median) for wall in peers)
            wall_z = (run.wall - peer_median) / (1.4826 * max(peer_mad, 0.1 * peer_median, 1))
            ratios = [
                value / statistics.median(positions[index])
                for index, value in enumerate(pre_epoch[run.run_id], start=1)
                if len(positions[index]) >= 3 and statistics.median(positions[index]) > 0
            ]
            pace = statistics.median(ratios) if ratios else 1.0
            scores = []
            for index, value in enumerate(pre_epoch[run.run_id], start=1):
                values = positions[index]
                if len(values) < 3:
                    continue
                median = statistics.median(values)
                mad = statistics.median(abs(v - median) for v in values)
                z = (value - median) / (1.4826 * max(mad, 0.1 * median, 1))
                outlier = z > 3.5 and value - median * pace >= max(0.02 * run.wall, 10)
                scores.append((outlier, z, -index))
            worst = max(scores) if scores else None
            slow = peer_ratio is not None and peer_ratio > 1.5 and wall_z > 3.5
            straggler = slow or (worst is not None and worst[0])
            expected[run.run_id] = (
                ratio, -worst[2] if worst else None, worst[1] if worst else None, straggler, peer_ratio
            )  # fmt: skip
    rows = sample_db.execute(
        "select run_id, wall_to_task_median, worst_interval_index, worst_interval_robust_z, is_straggler,"
        " wall_to_peer_median from fct_run_stragglers"
    ).fetchall()
    assert {row[0] for row in rows} == set(expected)
    for run_id, ratio, index, z, straggler, peer_ratio in rows:
        want = expected[run_id]
        assert (ratio is None) == (want[0] is None) and (ratio is None or ratio == pytest.approx(want[0])), run_id
        assert (peer_ratio is None) == (want[4] is None), run_id
        assert peer_ratio is None or peer_ratio == pytest.approx(want[4]), run_id
        assert index == want[1], run_id
        assert (z is None) == (want[2] is None) and (z is None or z == pytest.approx(want[2], rel=1e-9)), run_id
        assert straggler == want[3], run_id
    assert sum(want[3] for want in expected.values()) > 0


def test_interval_positions_and_their_comparison_match_the_oracle(sample_db):
    """Per position of v3 and v2 (every analysed run with markers, the profiled v2 runs included):
    runs, mean, median, p90 and p95 by the oracle; v3 against v2 interval label by interval label."""
    positions: dict[str, dict[int, list[float]]] = {}
    for run in ORACLE_RUNS.values():
        if run.status == "completed" and run.collection in (V3, V2):
            for index, (_, seconds) in enumerate(pre_epoch_positions(run.intervals), start=1):
                positions.setdefault(run.collection, {}).setdefault(index, []).append(seconds)
    rows = sample_db.execute(
        "select collection, interval_index, runs, mean_seconds, median_seconds, p90_seconds, p95_seconds"
        " from agg_collection_interval_positions where collection in (?, ?)",
        [V3, V2],
    ).fetchall()
    assert {(row[0], row[1]) for row in rows} == {(c, i) for c, by_index in positions.items() for i in by_index}
    for collection, index, runs, mean, median, p90, p95 in rows:
        values = positions[collection][index]
        assert runs == len(values)
        assert mean == pytest.approx(sum(values) / len(values))
        assert median == pytest.approx(statistics.median(values))
        assert (p90, p95) == (pytest.approx(percentile(values, 0.9)), pytest.approx(percentile(values, 0.95)))
    # v3 against v2 label by label (a run's labels once each, seconds summed): the labels of either side
    by_label: dict[str, dict[str, list[float]]] = {}
    for run in ORACLE_RUNS.values():
        if run.status == "completed" and run.collection in (V3, V2):
            held: dict[str, float] = {}
            for label, seconds in pre_epoch_positions(run.intervals):
                held[label] = held.get(label, 0.0) + seconds
            for label, seconds in held.items():
                by_label.setdefault(run.collection, {}).setdefault(label, []).append(seconds)
    compared = sample_db.execute(
        "select label, runs, baseline_runs, mean_seconds, baseline_mean_seconds, speedup, is_on_both_sides"
        " from cmp_collection_interval_positions where collection = ?",
        [V3],
    ).fetchall()
    assert {row[0] for row in compared} == set(by_label[V3]) | set(by_label[V2])
    for label, runs, baseline_runs, mean, baseline, speedup, both in compared:
        mine, theirs = by_label[V3].get(label, []), by_label[V2].get(label, [])
        assert (runs, baseline_runs, both) == (len(mine), len(theirs), bool(mine and theirs)), label
        want = sum(mine) / len(mine) if mine else None
        want_baseline = sum(theirs) / len(theirs) if theirs else None
        assert (mean, baseline) == (pytest.approx(want), pytest.approx(want_baseline)), label
        assert speedup == (pytest.approx(want_baseline / want) if mine and theirs else None), label


def test_each_trace_belongs_to_the_run_it_lies_beside(sample_db):
    """scripts/generate_sample.py writes v3-list_summation-05's trace into profiler/v3-list_summation-05/
    below v3's folder, its first step 120 s after the run's start, and v4-list_summation-01's likewise
    (gzipped): of the folder's runs whose window holds that start, that run started last
    (def_trace_runs), so each trace is its run's (not a run of its own), rank 0, read whole, with the
    5 whole steps it was written with."""
    rows = sample_db.execute(
        "select run_id, regexp_extract(file_path, 'profiler/([^/]+)/', 1), rank, is_own_run, profiled_steps,"
        " read_error from fct_traces order by run_id"
    ).fetchall()
    assert rows == [
        ("v3-list_summation-05", "v3-list_summation-05", 0, False, 5, None),
        ("v4-list_summation-01", "v4-list_summation-01", 0, False, 5, None),
    ]
