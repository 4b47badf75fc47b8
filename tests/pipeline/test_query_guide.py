"""The SQL guide (docs/queries.md, issue 25): every query runs over the sample and returns exactly
the answer the page shows, and each answer is checked against figures worked out from the sample's
raw logs here (tests/support/oracle.py reads them with no SQL), so the guide can neither drift from the
marts nor teach a wrong answer."""

from __future__ import annotations

import json
import statistics
from datetime import UTC, timedelta

import pytest

from runlens.raw_logs.as_of import SAMPLE_AS_OF, parse_as_of
from scripts.query_guide import GUIDE, answer_table, questions
from tests.support.oracle import (
    collection_stretches,
    concurrency,
    goodput_timeline,
    live_runs,
    oracle_parts,
    oracle_throughput,
    parse_ts,
    percentile,
    read_events,
    runs_from,
    timelines,
)
from tests.support.pipeline import SAMPLE

V2 = "from-entangled-v2/continuous-v2"
V3 = "from-entangled-v2/continuous-v3-beta-schedule"
V4 = "from-entangled-v2/continuous-v4-live"
EVENTS = read_events(SAMPLE)
RUNS = runs_from(EVENTS)
LINES = timelines(EVENTS)
AS_OF = parse_as_of(SAMPLE_AS_OF).replace(tzinfo=UTC)
LIVE = live_runs(LINES, AS_OF)
QUESTIONS = questions(GUIDE.read_text(encoding="utf-8"))


def completed(collection: str) -> list:
    return [run for run in RUNS.values() if run.collection == collection and run.status == "completed"]


def by_task(runs) -> dict[str, list]:
    tasks: dict[str, list] = {}
    for run in runs:
        tasks.setdefault(run.task, []).append(run)
    return tasks


def rows(sample_db, number: int) -> list[tuple]:
    return sample_db.execute(QUESTIONS[number - 1].sql).fetchall()


def test_the_guide_has_its_questions():
    assert len(QUESTIONS) == 29
    assert all(question.sql.strip().startswith(("select", "with")) for question in QUESTIONS)


@pytest.mark.parametrize("number", range(1, len(QUESTIONS) + 1))
def test_each_query_returns_the_answer_the_guide_shows(sample_db, number):
    question = QUESTIONS[number - 1]
    shown = question.answer.split("\n\n", 1)[1]  # after "Answer over the bundled sample:"
    assert answer_table(sample_db, question.sql) == shown, question.title


def test_1_the_slowest_runs_and_their_multiple_of_the_task_median(sample_db):
    runs = sorted(completed(V3), key=lambda run: -run.wall)[:3]
    medians = {task: statistics.median(run.wall for run in group) for task, group in by_task(completed(V3)).items()}
    got = [(row[0], row[2], row[3]) for row in rows(sample_db, 1)]
    assert got == [(run.run_id, round(run.wall / 3600, 2), round(run.wall / medians[run.task], 2)) for run in runs]


def test_2_a_task_s_epoch_is_its_run_to_the_epoch_end_without_downtime(sample_db):
    # the sample's runs end one epoch each: run_start to epoch_end, less a restart's downtime
    epochs = {task: [run.pre_tail - run.downtime for run in group] for task, group in by_task(completed(V3)).items()}
    got = {row[0]: row[1:] for row in rows(sample_db, 2)}
    for task, (runs, count, mean_minutes, p90_minutes) in got.items():
        assert (runs, count) == (len(epochs[task]), len(epochs[task]))
        assert mean_minutes == round(statistics.fmean(epochs[task]) / 60, 1)
        assert p90_minutes == round(percentile(epochs[task], 0.9) / 60, 1)
    slowest = sorted(epochs, key=lambda task: -statistics.fmean(epochs[task]))[:3]
    assert list(got) == slowest


def test_3_the_live_runs_and_their_likely_finish(sample_db):
    expected = {
        run_id: (live.live_status, live.last_marker_label, live.remaining)
        for run_id, live in LIVE.items()
        if run_id.startswith("v4-")
    }
    got = rows(sample_db, 3)
    assert {row[0]: (row[1], row[2]) for row in got} == {key: value[:2] for key, value in expected.items()}
    for run_id, _, _, finish in got:
        remaining = expected[run_id][2]
        if remaining is None:
            assert finish is None
        else:
            assert (finish.replace(tzinfo=UTC) - AS_OF).total_seconds() == pytest.approx(remaining[1], abs=1e-3)


def test_4_the_sweeps_progress(sample_db):
    for collection, done, running, stalled, abandoned, is_live, _, _ in rows(sample_db, 4):
        states = [live.live_status for run_id, live in LIVE.items() if LINES[run_id].collection == collection]
        assert done == len(completed(collection))
        assert (running, stalled, abandoned) == tuple(
            states.count(state) for state in ("running", "stalled", "abandoned")
        )
        assert is_live == (running + stalled > 0)


def kind_of(label: str) -> str:
    start, end = label.split(" -> ")
    if end == "run_start":
        return "... -> run_start"
    return " -> ".join("checkpoint" if marker.startswith("step_") else marker for marker in (start, end))


def test_5_time_by_kind_of_interval(sample_db):
    runs = [run for run in completed(V3) if run.source == "event_log"]
    totals: dict[str, list[float]] = {}
    for run in runs:
        for label, seconds in run.intervals:
            totals.setdefault(kind_of(label), []).append(seconds)
    wall = sum(run.wall for run in runs)
    got = {row[0]: row[1:] for row in rows(sample_db, 5)}
    assert set(got) == set(totals)
    for kind, (intervals, hours, share) in got.items():
        assert (intervals, hours, share) == (
            len(totals[kind]),
            round(sum(totals[kind]) / 3600, 2),
            round(sum(totals[kind]) / wall, 3),
        )


def latest_profiles(collection: str) -> dict[str, dict]:
    """Each analysed run's latest profile event, read from the raw events."""
    analysed = {run.run_id for run in completed(collection)}
    latest: dict[str, dict] = {}
    for event in sorted((e for e in EVENTS if e["event"] == "profile"), key=lambda e: (e["_at"], e["_order"])):
        if event["run_id"] in analysed:
            latest[event["run_id"]] = event
    return latest


def test_6_and_7_profiler_sections_summed_from_the_profiles(sample_db):
    profiles = latest_profiles(V2)
    totals: dict[str, float] = {}
    shares = []
    for run_id, profile in profiles.items():
        sections = dict(profile["sections"])
        sections["unattributed"] = max(profile["wall_seconds"] - sum(sections.values()), 0)
        for section, seconds in sections.items():
            totals[section] = totals.get(section, 0.0) + seconds
            if section != "unattributed":
                # the guide orders by the share it shows (three places), then by run
                shares.append((-round(seconds / profile["wall_seconds"], 3), run_id, section))
    wall = sum(profile["wall_seconds"] for profile in profiles.values())
    got = {row[0]: row[1:] for row in rows(sample_db, 6)}
    assert got == {section: (round(total / 3600, 1), round(total / wall, 3)) for section, total in totals.items()}
    top = sorted(shares)[:3]
    assert [(row[0], row[2], row[3]) for row in rows(sample_db, 7)] == [
        (run_id, section, -share) for share, run_id, section in top
    ]


def test_8_a_task_s_percentiles(sample_db):
    walls = {task: [run.wall for run in group] for task, group in by_task(completed(V3)).items()}
    for task, runs, median, p90, p95 in rows(sample_db, 8):
        assert runs == len(walls[task])
        assert (median, p90, p95) == tuple(
            round(value / 3600, 2)
            for value in (statistics.median(walls[task]), percentile(walls[task], 0.9), percentile(walls[task], 0.95))
        )


def test_9_the_comparison_with_matched_tasks(sample_db):
    for collection, baseline, speedup, matched_tasks, matched_speedup, mixed, _regressed in rows(sample_db, 9):
        mine, theirs = by_task(completed(collection)), by_task(completed(baseline))
        mean = statistics.fmean(run.wall for run in completed(collection))
        assert speedup == round(statistics.fmean(run.wall for run in completed(baseline)) / mean, 3)
        both = [task for task in mine if task in theirs]
        at_my_mix = sum(len(mine[t]) * statistics.fmean(r.wall for r in theirs[t]) for t in both) / sum(
            len(mine[t]) for t in both
        )
        mine_matched = sum(sum(r.wall for r in mine[t]) for t in both) / sum(len(mine[t]) for t in both)
        assert (matched_tasks, matched_speedup) == (len(both), round(at_my_mix / mine_matched, 3))
        assert mixed == (set(mine) != set(theirs))  # the sample's mixes differ only where a task is missing
    assert [row[6] for row in rows(sample_db, 9)] == [0, 1]  # v4's base_conversion (test 10)


def test_10_the_chain_and_its_regressed_task(sample_db):
    got = rows(sample_db, 10)
    assert [row[0] for row in got] == [V2, V3, V4]
    v3, v4 = statistics.fmean(r.wall for r in completed(V3)), statistics.fmean(r.wall for r in completed(V4))
    assert got[2][1] == round(v3 / v4, 3)
    base = [statistics.fmean(r.wall for r in by_task(completed(c))["base_conversion"]) for c in (V3, V4)]
    assert got[2][2:] == ("base_conversion", round(base[0] / base[1], 3))


def test_11_the_parts_of_the_difference(sample_db):
    sides = {c: [oracle_parts(run) for run in completed(c)] for c in (V4, V3)}
    mean = {c: {p: statistics.fmean(r[p] for r in runs) for p in runs[0]} for c, runs in sides.items()}
    difference = sum(mean[V4].values()) - sum(mean[V3].values())
    for part, minutes, baseline_minutes, speedup, share in rows(sample_db, 11):
        assert (minutes, baseline_minutes) == (round(mean[V4][part] / 60, 1), round(mean[V3][part] / 60, 1))
        expected = mean[V3][part] / mean[V4][part] if mean[V4][part] > 1e-6 else None
        assert speedup == (None if expected is None else round(expected, 2)), part
        assert share == round((mean[V4][part] - mean[V3][part]) / difference, 3)


def test_12_the_intervals_that_moved_most(sample_db):
    def labels(collection):
        held: dict[str, list[float]] = {}
        for run in completed(collection):
            ends = [i for i, (label, _) in enumerate(run.intervals) if label.endswith("-> epoch_end")]
            mine: dict[str, float] = {}
            for label, seconds in run.intervals[: ends[-1] + 1] if ends else []:
                mine[label] = mine.get(label, 0.0) + seconds
            for label, seconds in mine.items():
                held.setdefault(label, []).append(seconds)
        return held

    mine, theirs = labels(V4), labels(V3)
    moved = sorted(
        (-abs(statistics.fmean(mine[label]) - statistics.fmean(theirs[label])), label)
        for label in mine
        if label in theirs
    )
    got = rows(sample_db, 12)
    assert [row[0] for row in got] == [label for _, label in moved[:3]]
    for label, runs, baseline_runs, *_ in got:
        assert (runs, baseline_runs) == (len(mine[label]), len(theirs[label]))


def test_13_config_that_differs_with_identity_keys_left_out(sample_db):
    def values(collection, key):
        found = set()
        for event in EVENTS:
            run = RUNS.get(event["run_id"])
            if event["event"] == "run_start" and run is not None and run.collection == collection:
                found.add(json.dumps((event.get("config") or {}).get(key)))
        return found

    got = rows(sample_db, 13)
    assert [(row[0], row[1]) for row in got] == [(V3, "beta_schedule"), (V3, "eval_generation_num_samples")]
    assert values(V3, "seed") != values(V2, "seed")  # the seed differs, and is left out by design
    assert values(V3, "beta_schedule") == {'"cosine"'} and values(V2, "beta_schedule") == {'"linear"', "null"}


def test_14_throughput(sample_db):
    figures: dict[str, list] = {}
    for run in completed(V3):
        per_hour, per_100 = oracle_throughput(run)
        if per_hour is not None:
            figures.setdefault(run.task, []).append((per_hour, per_100))
    for task, runs, per_hour, per_100 in rows(sample_db, 14):
        assert runs == len(figures[task])
        assert per_hour == round(statistics.fmean(f[0] for f in figures[task]))
        assert per_100 == round(statistics.fmean(f[1] for f in figures[task]), 1)


def test_15_span_and_concurrency(sample_db):
    for collection, span_hours, active_hours, peak, mean_at_once, _ in rows(sample_db, 15):
        stretches = collection_stretches(LINES, LIVE, AS_OF, collection)
        first, last, expected_peak, run_seconds = concurrency([s for runs in stretches.values() for s in runs])
        assert (span_hours, active_hours, peak) == (
            round((last - first) / 3600, 2),
            round(run_seconds / 3600, 2),
            expected_peak,
        )
        assert mean_at_once == round(run_seconds / (last - first), 2)


def test_16_gpu_hours_known_only_when_every_run_names_its_gpus(sample_db):
    for task, runs, with_gpus, gpu_hours in rows(sample_db, 16):
        lines = [line for line in LINES.values() if line.collection == V4 and line.task == task]
        assert (runs, with_gpus) == (len(lines), sum(line.gpus is not None for line in lines))
        if with_gpus < runs:
            assert gpu_hours is None
        else:
            active = [LIVE[line.run_id].running_seconds if line.run_id in LIVE else line.active for line in lines]
            assert gpu_hours == round(
                sum(line.gpus * seconds / 3600 for line, seconds in zip(lines, active, strict=True)), 2
            )


def test_17_the_final_tail(sample_db):
    tasks = by_task(completed(V3))
    expected = sorted(
        (
            -round(statistics.fmean(run.tail_share for run in runs), 3),
            task,
            round(statistics.fmean(run.tail for run in runs) / 60, 1),
        )
        for task, runs in tasks.items()
    )[:3]  # the largest shares as shown (three places), ties by task
    assert rows(sample_db, 17) == [(task, minutes, -share) for share, task, minutes in expected]


def test_18_the_runs_left_out(sample_db):
    left_out: dict[tuple, list] = {}
    for run in RUNS.values():
        if run.collection is not None and run.status != "completed":
            left_out.setdefault((run.collection, run.status), []).append(run.run_id)
    assert {(row[0], row[1]): (row[2], row[3]) for row in rows(sample_db, 18)} == {
        key: (len(ids), ", ".join(sorted(ids)[:5])) for key, ids in left_out.items()
    }


def test_19_the_rejected_lines_of_one_file(sample_db):
    # scripts/generate_sample.py fault_lines: a cut line, the byte 0xff, a JSON list, a blank
    # line, a checkpoint without a step, the duplicate, `Run_End`, a heartbeat, `ts: yesterday`
    assert [(row[1], row[2], row[3]) for row in rows(sample_db, 19)] == [
        (1, "invalid_json", None),
        (2, "invalid_utf8", None),
        (3, "not_object", None),
        (5, "missing_step", None),
        (7, "unknown_event", "Run_End"),
        (9, "bad_ts", None),
    ]


def test_20_other_events(sample_db):
    counts: dict[str, set] = {}
    lines: dict[str, int] = {}
    for path in sorted(SAMPLE.rglob("*.jsonl*")):
        import gzip

        text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        for raw in text.splitlines():
            try:
                doc = json.loads(raw)
            except ValueError:
                continue
            kind = doc.get("event") if isinstance(doc, dict) else None
            if kind in ("metric", "heartbeat"):
                lines[kind] = lines.get(kind, 0) + 1
                counts.setdefault(kind, set()).add(doc.get("run_id"))
    assert rows(sample_db, 20) == [("metric", lines["metric"], len(counts["metric"])), ("heartbeat", 1, 1)]


def test_21_each_collection_s_own_files(sample_db):
    # one file per run (38 of v3, 24 of v2, 14 of v4: scripts/generate_sample.py), and
    # zz-faults/mixed_faults.jsonl holds lines of v3's runs: its 6 rejected lines are v3's
    got = {row[0]: (row[1], row[6], row[7]) for row in rows(sample_db, 21)}
    samples = 0  # v4's sample lines (scripts/generate_sample.py, v4_samples), counted from the raw files
    for path in (SAMPLE / "from-entangled-v2__continuous-v4-live").glob("*.jsonl"):
        samples += sum(json.loads(line)["event"] == "sample" for line in path.read_text(encoding="utf-8").splitlines())
    assert got == {V2: (24, 0, 0), V3: (39, 6, 0), V4: (14, 0, samples)}
    assert samples > 0


def test_22_a_collection_s_goodput(sample_db):
    # v3 has no profiles, no ranks and no train_start: what its sessions leave is productive
    parts = {"down": 0.0, "redone": 0.0, "lost": 0.0, "silent": 0.0, "final_tail": 0.0, "wall": 0.0}
    for line in LINES.values():
        if line.collection == V3:
            for name, value in goodput_timeline(line, EVENTS, LIVE, AS_OF).items():
                parts[name] += value
    timeline_buckets = ("down", "redone", "lost", "silent", "final_tail")
    parts["productive"] = parts["wall"] - sum(parts[name] for name in timeline_buckets)
    expected = [
        (name, round(parts[name] / 3600, 2), round(parts[name] / parts["wall"], 3))
        for name in ("productive", *timeline_buckets)
        if parts[name] > 0
    ]
    assert rows(sample_db, 22) == expected
    assert parts["lost"] > 0 and parts["down"] > 0  # a failed run's lost training, a restart


def test_23_what_restarts_cost(sample_db):
    restarted = {
        line.run_id: goodput_timeline(line, EVENTS, LIVE, AS_OF)
        for line in LINES.values()
        if sum(event == "run_start" for event, *_ in line.markers) > 1
    }
    expected = sorted(
        (
            -(parts["down"] + parts["redone"]),
            run_id,
            round(parts["down"] / 60, 1),
            round(parts["redone"] / 60, 1),
        )
        for run_id, parts in restarted.items()
    )
    # no train_start in the sample: every resume's checkpoint is inferred
    assert rows(sample_db, 23) == [(run_id, 1, down, redone, 1) for _, run_id, down, redone in expected]


def first_starts() -> dict[str, tuple[str, str]]:
    """Each run's collection and task: those of its first run_start, read from the raw lines."""
    found: dict[str, tuple] = {}
    for event in sorted(EVENTS, key=lambda event: (event["_at"], event["_order"])):
        if event["event"] == "run_start" and event["run_id"] not in found:
            found[event["run_id"]] = (event["collection"], event["task"])
    return found


@pytest.mark.parametrize(
    "mart",
    [
        "fct_runs",
        "fct_run_intervals",
        "fct_run_interval_kinds",
        "fct_run_epochs",
        "fct_events",
        "fct_duplicate_lines",
        "fct_other_events",
        "fct_rejected_lines",
        "fct_run_profile_sections",
        "fct_run_live_status",
        "fct_run_goodput",
    ],
)
def test_a_mart_of_runs_or_finer_names_each_run_s_collection_and_task(sample_db, mart):
    """Every row of a run carries that run's collection and task, so one collection is a `where`
    (rows of a run without a run_start, or of no run, have neither)."""
    starts = first_starts()
    rows_ = sample_db.execute(f"select run_id, collection, task from {mart}").fetchall()
    assert rows_
    for run_id, collection, task in rows_:
        assert (collection, task) == starts.get(run_id, (None, None)), (mart, run_id)


def test_24_what_each_interval_spent_its_time_on(sample_db):
    """From the raw v2 profiles alone: each profile is cumulative and written at a marker, so the
    difference between two consecutive ones is what each section took in the interval between
    those markers; the first interval (run_start to the first checkpoint, from 0) is the opening
    block, the rest up to the epoch end the later windows; what no section took is unattributed."""
    totals: dict[tuple[str, str], float] = {}
    runs = set()
    for line in LINES.values():
        if line.collection != V2:
            continue
        runs.add(line.run_id)
        starts = [at for event, _, at, _ in line.markers if event == "run_start"]
        ends = {at for event, _, at, _ in line.markers if event in ("checkpoint", "epoch_end")}
        profiles = sorted(
            (e for e in EVENTS if e["run_id"] == line.run_id and e["event"] == "profile" and e["_at"] in ends),
            key=lambda e: e["_at"],
        )
        previous_at, previous = starts[0], {}
        for index, profile in enumerate(profiles):
            part = "opening_block" if index == 0 else "later_windows"
            length = (profile["_at"] - previous_at).total_seconds()
            taken = 0.0
            for section, seconds in profile["sections"].items():
                delta = seconds - previous.get(section, 0.0)
                totals[(part, section)] = totals.get((part, section), 0.0) + delta
                taken += delta
            totals[(part, "unattributed")] = totals.get((part, "unattributed"), 0.0) + length - taken
            totals[(part, "length")] = totals.get((part, "length"), 0.0) + length
            previous_at, previous = profile["_at"], profile["sections"]
    expected = sorted(
        (
            (part, section, round(seconds / len(runs) / 60, 1), round(seconds / totals[(part, "length")], 3))
            for (part, section), seconds in totals.items()
            if section != "length" and seconds > 0.0005
        ),
        key=lambda row: (row[0], -totals[(row[0], row[1])]),
    )
    assert len(runs) == 24
    assert rows(sample_db, 24) == expected


def v4_utilization_by_interval() -> list[tuple[str, str, float, float | None, int, int]]:
    """Every v4 interval from the raw lines alone, as def_utilization says: (run, kind, GPU-seconds held,
    busy GPU-seconds or None when not measured, task).
    A sample stands for its GPU until the GPU's next sample, at most 60 s later; an interval's active
    time ends at the crashed session's last event before a restart; it is measured with at least 2
    samples per sampled GPU inside it; its GPUs are resources.gpus, else the GPUs its samples name."""
    samples: dict[str, dict[int, list[tuple]]] = {}
    for path in sorted((SAMPLE / "from-entangled-v2__continuous-v4-live").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            doc = json.loads(raw)
            if doc["event"] == "sample" and "gpu" in doc:
                at = parse_ts(doc["ts"])
                samples.setdefault(doc["run_id"], {}).setdefault(doc["gpu"], []).append(
                    (at, doc["measurements"]["gpu_utilization"])
                )
    spans: dict[str, list[tuple]] = {}
    for run_id, gpus in samples.items():
        for points in gpus.values():
            points.sort()
            for (at, value), following in zip(points, [*points[1:], None], strict=True):
                until = at + timedelta(seconds=60)
                if following is not None and following[0] < until:
                    until = following[0]
                spans.setdefault(run_id, []).append((at, until, value))
    found = []
    for line in LINES.values():
        if line.collection != V4:
            continue
        sampled = len(samples[line.run_id])
        gpus = line.gpus if line.gpus is not None else sampled
        kinds = [event for event, _, _, _ in line.markers]
        for (first, _, start, _), (second, _, end, _) in zip(line.markers, line.markers[1:], strict=False):
            active_end = line.down.get(end, end) if second == "run_start" else end
            kind = f"{first} -> {second}" if second != "run_start" else "... -> run_start"
            inside = sum(1 for at, _, _ in spans[line.run_id] if start <= at < active_end)
            weighted = covered = 0.0
            for at, until, value in spans[line.run_id]:
                overlap = (min(until, active_end) - max(at, start)).total_seconds()
                if overlap > 0:
                    weighted += value * overlap
                    covered += overlap
            seconds = max((active_end - start).total_seconds(), 0.0) * gpus
            measured = inside >= 2 * sampled and covered > 0
            # busy GPU-seconds: the mean (a fraction) times the GPU-seconds held
            busy = weighted / covered / 100 * seconds if measured else None
            found.append((line.run_id, kind, seconds, busy, line.task))
        assert kinds[0] == "run_start"
    return found


def test_25_and_26_idle_gpu_hours_by_kind_of_interval_and_task(sample_db):
    """The rollups weight each measured interval's mean by its GPU-hours, so a group's utilization is
    the sum of mean x GPU-hours over its measured GPU-hours, and its idle GPU-hours the measured
    GPU-hours less that sum."""
    intervals = v4_utilization_by_interval()

    def rollup(key_of):
        groups: dict[str, list] = {}
        for row in intervals:
            groups.setdefault(key_of(row), []).append(row)
        out = {}
        for key, members in groups.items():
            held = sum(row[2] for row in members) / 3600
            measured = sum(row[2] for row in members if row[3] is not None) / 3600
            busy = sum(row[3] for row in members if row[3] is not None) / 3600
            out[key] = (len({row[0] for row in members}), held, measured, busy)
        return out

    kinds = rollup(lambda row: row[1])
    total_idle = sum(measured - busy for _, _, measured, busy in kinds.values())
    expected_kinds = sorted(
        (
            (
                kind,
                runs,
                round(held, 2),
                round(100 * busy / measured, 1),
                round(measured - busy, 2),
                round((measured - busy) / total_idle, 3),
            )
            for kind, (runs, held, measured, busy) in kinds.items()
            if held > 0
        ),
        key=lambda row: -row[4],
    )
    assert rows(sample_db, 25) == expected_kinds
    tasks = rollup(lambda row: row[4])
    expected_tasks = sorted(
        (
            (task, runs, round(measured, 1), round(100 * busy / measured, 1), round(measured - busy, 1))
            for task, (runs, held, measured, busy) in tasks.items()
        ),
        key=lambda row: -row[4],
    )
    assert rows(sample_db, 26) == expected_tasks


# The sample's two profiler traces (scripts/generate_sample.py, SAMPLE_TRACES), worked by hand in
# microseconds. Each holds 5 whole steps (ProfilerStep#2..#6; #7 is cut short and not a step) of
# list_summation, every step alike: the DataLoader's __next__ from 100 to 100 + loading, the first
# GPU event 50 after its launch at 100 + loading + 200, the step's 6 GPU events back to back on
# stream 7, 5 apart: Memcpy HtoD 800 and Memset 200 (memory), gemm 9000, flash_fwd_kernel, flash_bwd
# 12000, gemm 21000 (computation).
#   v3 (v3-list_summation-05): steps of 100000, loading 40000, flash_fwd_kernel 6000. Computation
#     9000 + 6000 + 12000 + 21000 = 48000 a step, memory 1000, busy 49000 + 5 gaps of 5 = 49025 from
#     the first GPU event at 40350 to 89375. The steps tile the GPU's timeline from the first
#     step's first GPU event (40350) to the last step's end (4 x 100000 + 89375 = 489375): span
#     449025, idle 449025 - 5 x 49000 = 204025, per step 40805.
#   v4 (v4-list_summation-01): steps of 60000, loading 2000, flash_fwd_kernel 9000. Computation
#     51000 a step, memory 1000, GPU events from 2350 to 2350 + 52025 = 54375; span 4 x 60000 + 54375
#     - 2350 = 292025, idle 292025 - 5 x 52000 = 32025, per step 6405.
LIST_SUMMATION = "list_summation"


def test_27_v3_made_the_step_input_bound_and_v4_did_not(sample_db):
    """Data loading over the steps' wall time: v3 5 x 40000 / 5 x 100000 = 0.4, above the 20%
    input-bound share; v4 5 x 2000 / 5 x 60000 = 0.0333 (0.033), below it. The mean step: 100 ms and
    60 ms. v3's baseline v2 has no trace: NULL; v4's baseline v3 is the v3 row."""
    assert rows(sample_db, 27) == [
        (V3, LIST_SUMMATION, 5, 100.0, 0.4, True, V2, None, None),
        (V4, LIST_SUMMATION, 5, 60.0, 0.033, False, V3, 0.4, True),
    ]


def test_28_the_attention_kernel_grew(sample_db):
    """Per profiled step (each run's 5 steps, every kernel in the top ten: 5 names), v4 against v3,
    in ms: flash_fwd_kernel 9 against 6 (+3, the one that grew, first); the rest the same, by name
    (upper case first): the memory copy 0.8, the memset 0.2, flash_bwd 12, the gemm twice a step,
    9 + 21 = 30. v3's baseline v2 was not profiled: no row."""
    gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
    assert rows(sample_db, 28) == [
        (V4, "flash_fwd_kernel", 9.0, 6.0, 3.0),
        (V4, "Memcpy HtoD (Pageable -> Device)", 0.8, 0.8, 0.0),
        (V4, "Memset (Device)", 0.2, 0.2, 0.0),
        (V4, "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", 12.0, 12.0, 0.0),
        (V4, gemm, 30.0, 30.0, 0.0),
    ]


def test_29_the_parts_of_the_step_that_moved(sample_db):
    """v4 against v3 per step, in ms, the step 40 shorter (60 against 100): data loading 2 against
    40 (-38, 38 / 40 = 0.95 of the change), GPU idle 6405 against 40805 us (6.4 against 40.8,
    -34.4, 34400 / 40000 = 0.86), computation 51 against 48 (+3, -3 / 40 = -0.075); memory (1 on
    both sides), communication and other (none) did not move."""
    assert rows(sample_db, 29) == [
        (V4, "data_loading", 2.0, 40.0, -38.0, 0.95),
        (V4, "idle", 6.4, 40.8, -34.4, 0.86),
        (V4, "computation", 51.0, 48.0, 3.0, -0.075),
    ]
