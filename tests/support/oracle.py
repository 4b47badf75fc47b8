"""A small, independent plain-Python reading of the metric definitions (models/marts/*/_*__docs.md).

It shares no code with the dbt models: it parses JSON with the standard library and applies the
definitions to valid events, so tests can compare the marts with it (differential testing).
It expects valid events only; lines it cannot read are skipped, not classified.
"""

from __future__ import annotations

import gzip
import json
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

MARKER_RANK = {"run_start": 1, "checkpoint": 2, "epoch_end": 3, "run_end": 4}


def parse_ts(value) -> datetime:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    text = value.replace(" ", "T").replace("z", "Z").replace("Z", "+00:00")
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def read_events(raw_dir: Path) -> list[dict]:
    """Valid-looking events of every log file, deduplicated as the contract says."""
    events, seen = [], set()
    for path in sorted(p for p in raw_dir.rglob("*") if p.name.endswith((".jsonl", ".jsonl.gz"))):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as handle:
            lines = handle.read().split(b"\n")
        for number, raw in enumerate(lines, start=1):
            try:
                doc = json.loads(raw.decode("utf-8-sig"))
                doc["_at"] = parse_ts(doc["ts"])
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            if not isinstance(doc, dict) or doc.get("event") not in (*MARKER_RANK, "profile"):
                continue
            key = (doc["run_id"], doc["event"], doc["_at"], doc.get("step"), doc.get("epoch"))
            if key in seen:
                continue
            seen.add(key)
            doc["_order"] = (str(path.relative_to(raw_dir)), number)
            events.append(doc)
    return events


@dataclass
class Run:
    run_id: str
    collection: str | None
    status: str
    source: str | None
    wall: float | None
    pre_tail: float | None
    tail: float | None
    downtime: float
    intervals: list[tuple[str, float]]
    task: str | None = None

    @property
    def tail_share(self):
        return self.tail / self.wall if self.tail is not None and self.wall else None


def pre_epoch_positions(intervals: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """A run's pre-epoch intervals as positions (def_interval_positions), read off their labels:
    an interval that ends at a run_start is a restart's downtime and no position; one that opens at
    a restart's run_start takes its label from the last marker before the restart(s)."""
    ends = [i for i, (label, _) in enumerate(intervals) if label.endswith("-> epoch_end")]
    positions, before_restart = [], None
    for i, (label, seconds) in enumerate(intervals[: ends[-1] + 1] if ends else []):
        opening, closing = label.split(" -> ")
        if i == 0:
            before_restart = opening
        if closing == "run_start":
            continue
        positions.append((f"{before_restart if i > 0 and opening == 'run_start' else opening} -> {closing}", seconds))
        before_restart = closing
    return positions


def seconds(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds()


def session_ends(kept: list[dict], events: list[dict]) -> list[tuple[datetime, datetime]]:
    """(last event, restart) for each restart among a run's kept markers: the run was down from its
    session's last event (any event read, from the session's run_start on) to the restart
    (def_downtime, def_sessions)."""
    starts = [m["_at"] for m in kept if m["event"] == "run_start"]
    return [
        (max(e["_at"] for e in events if start <= e["_at"] < restart), restart)
        for start, restart in zip(starts, starts[1:], strict=False)
    ]


def runs_from(events: list[dict]) -> dict[str, Run]:
    by_run: dict[str, list[dict]] = {}
    for event in events:
        by_run.setdefault(event["run_id"], []).append(event)
    return {run_id: build_run(run_id, run_events) for run_id, run_events in by_run.items()}


def build_run(run_id: str, events: list[dict]) -> Run:
    markers = sorted(
        (e for e in events if e["event"] in MARKER_RANK),
        key=lambda e: (e["_at"], MARKER_RANK[e["event"]], e.get("step") or -1, e["_order"]),
    )
    starts = [i for i, m in enumerate(markers) if m["event"] == "run_start"]
    ends = [i for i, m in enumerate(markers) if m["event"] == "run_end"]
    profiles = sorted((e for e in events if e["event"] == "profile"), key=lambda e: (e["_at"], e["_order"]))
    profile = profiles[-1] if profiles else None
    if not starts:
        return Run(run_id, None, "incomplete", None, None, None, None, 0.0, [])
    final_end = ends[-1] if ends and ends[-1] > starts[-1] else None
    kept = [
        m
        for i, m in enumerate(markers)
        if i >= starts[0] and (final_end is None or i <= final_end) and (m["event"] != "run_end" or i == final_end)
    ]
    labels = [f"step_{m['step']}" if m["event"] == "checkpoint" else m["event"] for m in kept]
    intervals = [
        (f"{labels[i - 1]} -> {labels[i]}", seconds(kept[i - 1]["_at"], kept[i]["_at"])) for i in range(1, len(kept))
    ]
    downtime = sum(seconds(last, restart) for last, restart in session_ends(kept, events))
    epoch_ends = [m for m in kept if m["event"] == "epoch_end"]
    start_at = kept[0]["_at"]
    if final_end is not None:
        end = markers[final_end]
        status = "completed" if end.get("status", "completed") == "completed" else "failed"
        wall, source = seconds(start_at, end["_at"]), "event_log"
        # def_final_epoch_end: a checkpoint after the last epoch_end that saved a later step than that
        # epoch_end's means training went on: the time after it is no final tail (neither part known)
        final = epoch_ends[-1] if epoch_ends else None
        final_step = final.get("step") if final is not None else None
        trained_after = (
            isinstance(final_step, int)
            and not isinstance(final_step, bool)
            and any(m["event"] == "checkpoint" and m["_at"] > final["_at"] and m["step"] > final_step for m in kept)
        )
        measured = final is not None and not trained_after
        pre_tail = seconds(start_at, final["_at"]) if measured else None
        tail = seconds(final["_at"], end["_at"]) if measured else None
    elif profile is not None:
        status, wall, source, pre_tail, tail = "completed", float(profile["wall_seconds"]), "profiler", None, None
    else:
        status, wall, source, pre_tail, tail = "incomplete", None, None, None, None
    if source == "profiler":  # the profiler's wall time is in-process time, with no downtime
        downtime = 0.0
    return Run(
        run_id, kept[0]["collection"], status, source, wall, pre_tail, tail, downtime, intervals, kept[0].get("task")
    )


def collection_stats(runs: dict[str, Run], collection: str) -> dict:
    analysed = [r for r in runs.values() if r.collection == collection and r.status == "completed"]
    walls = [r.wall for r in analysed]
    tails = [r.tail for r in analysed if r.tail is not None]
    shares = [r.tail_share for r in analysed if r.tail_share is not None]
    task_means = {
        task: statistics.fmean(r.wall for r in analysed if r.task == task) for task in {r.task for r in analysed}
    }
    return {
        "runs_analyzed": len(analysed),
        "runs_excluded": sum(1 for r in runs.values() if r.collection == collection) - len(analysed),
        "mean_wall_seconds": statistics.fmean(walls),
        "median_wall_seconds": statistics.median(walls),
        "min_wall_seconds": min(walls),
        "max_wall_seconds": max(walls),
        "mean_tail_seconds": statistics.fmean(tails) if tails else None,
        "max_tail_seconds": max(tails) if tails else None,
        "mean_tail_share": statistics.fmean(shares) if shares else None,
        "p90_wall_seconds": percentile(walls, 0.9),
        "p95_wall_seconds": percentile(walls, 0.95),
        "slowest_to_fastest_task_ratio": (
            max(task_means.values()) / min(task_means.values()) if min(task_means.values()) > 0 else None
        ),
    }


# ---------------------------------------------------------------------------------------------
# Live runs at an as-of time (models/marts/live/_live__docs.md), read again from the events: no
# SQL, no shared code. Percentiles come from the standard library's statistics.quantiles
# (method "inclusive" is the interpolation def_percentiles states).

STALL_MULTIPLE, STALL_MIN_SECONDS, MIN_TASK_PEERS = 3, 600, 3
ABANDON_HORIZON_SECONDS = 7 * 24 * 3600  # dbt var abandon_horizon_seconds


@dataclass
class Timeline:
    """A run's kept markers with their active seconds, its running stretches and its GPUs."""

    run_id: str
    collection: str
    task: str
    status: str
    markers: list[tuple[str, str, datetime, float]]  # (event, label, at, active seconds to it)
    down: dict[datetime, datetime]  # each restart's run_start -> its crashed session's last event
    next_interval: dict[int, float]  # marker position -> seconds of the interval after it
    last_event_at: datetime
    ended_at: datetime | None
    active: float | None  # finished runs: wall less downtime (a profiled run: its wall)
    downtime: float
    gpus: int | None


def timelines(events: list[dict]) -> dict[str, Timeline]:
    by_run: dict[str, list[dict]] = {}
    for event in events:
        by_run.setdefault(event["run_id"], []).append(event)
    runs = runs_from(events)
    found = {}
    for run_id, run_events in by_run.items():
        run = runs[run_id]
        starts = sorted((e for e in run_events if e["event"] == "run_start"), key=lambda e: (e["_at"], e["_order"]))
        if not starts:
            continue
        markers = sorted(
            (e for e in run_events if e["event"] in MARKER_RANK),
            key=lambda e: (e["_at"], MARKER_RANK[e["event"]], e.get("step") or -1, e["_order"]),
        )
        first = markers.index(starts[0]) if starts[0] in markers else 0
        ends = [i for i, m in enumerate(markers) if m["event"] == "run_end"]
        last_start = max(i for i, m in enumerate(markers) if m["event"] == "run_start")
        final_end = ends[-1] if ends and ends[-1] > last_start else None
        kept = [
            m
            for i, m in enumerate(markers)
            if i >= first and (final_end is None or i <= final_end) and (m["event"] != "run_end" or i == final_end)
        ]
        down = {restart: last for last, restart in session_ends(kept, run_events)}
        active, rows, following = 0.0, [], {}
        for i, marker in enumerate(kept):
            if i > 0:
                gap = seconds(kept[i - 1]["_at"], marker["_at"])
                following[i - 1] = gap
                if marker["event"] == "run_start":  # a restart: only its downtime is left out
                    gap -= seconds(down[marker["_at"]], marker["_at"])
                active += gap
            label = f"step_{marker['step']}" if marker["event"] == "checkpoint" else marker["event"]
            rows.append((marker["event"], label, marker["_at"], active))
        gpus = None
        for start in starts:  # the latest run_start that names its GPUs
            resources = start.get("resources")
            value = resources.get("gpus") if isinstance(resources, dict) else None
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                gpus = value
        found[run_id] = Timeline(
            run_id=run_id,
            collection=starts[0]["collection"],
            task=starts[0]["task"],
            status=run.status,
            markers=rows,
            down=down,
            next_interval=following,
            last_event_at=max(e["_at"] for e in run_events),
            ended_at=kept[-1]["_at"] if final_end is not None else None,
            active=run.wall - run.downtime if run.wall is not None else None,
            downtime=run.downtime,
            gpus=gpus,
        )
    return found


def percentile(values: list[float], fraction: float) -> float:
    """The inclusive (linear) percentile, as spreadsheets' PERCENTILE.INC computes it."""
    if len(values) == 1:
        return values[0]
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[round(fraction * 100) - 1]


@dataclass
class LiveRun:
    run_id: str
    live_status: str
    last_marker_label: str
    silent_seconds: float
    stall_threshold_seconds: float
    abandon_threshold_seconds: float
    peer_set: str
    peer_runs: int
    pace_ratio: float | None
    remaining: tuple[float, float, float] | None  # low, point, high
    running_seconds: float  # seconds its stretches ran (to the as-of time while running)


def live_runs(lines: dict[str, Timeline], as_of: datetime) -> dict[str, LiveRun]:
    """Each incomplete run as the live-run rules say (models/marts/live/_live__docs.md), worked out
    here from the events alone: its peers at its last marker, their remaining times at the peers'
    median pace, the stall and abandon thresholds, an estimate only while it runs."""
    peers_by_collection: dict[str, list[Timeline]] = {}
    for line in lines.values():
        if line.status == "completed" and line.ended_at is not None:
            peers_by_collection.setdefault(line.collection, []).append(line)
    found = {}
    for line in lines.values():
        if line.status != "incomplete":
            continue
        progress = [m for i, m in enumerate(line.markers) if not (m[0] == "run_start" and i > 0)]
        _, label, _, to_marker = progress[-1]
        at_marker = []  # (peer, active to the marker, remaining after it, next interval)
        for peer in peers_by_collection.get(line.collection, []):
            position = next((i for i, m in enumerate(peer.markers) if m[1] == label), None)
            if position is not None:
                reached = peer.markers[position][3]
                at_marker.append((peer, reached, peer.active - reached, peer.next_interval.get(position)))
        same_task = [row for row in at_marker if row[0].task == line.task]
        if len(same_task) >= MIN_TASK_PEERS:
            peer_set, chosen = "task", same_task
        else:
            peer_set, chosen = ("collection", at_marker) if at_marker else ("none", [])
        nexts = [row[3] for row in chosen if row[3] is not None]
        threshold = max(STALL_MULTIPLE * percentile(nexts, 0.95) if nexts else 0.0, STALL_MIN_SECONDS)
        task_runs = [peer.active for peer in peers_by_collection.get(line.collection, []) if peer.task == line.task]
        every_run = [peer.active for peer in peers_by_collection.get(line.collection, [])]
        longest = max(task_runs or every_run or [ABANDON_HORIZON_SECONDS])
        abandon = max(threshold, min(longest, ABANDON_HORIZON_SECONDS))
        silent = seconds(line.last_event_at, as_of)
        status = "abandoned" if silent > abandon else "stalled" if silent > threshold else "running"
        pace, remaining = None, None
        if chosen:
            median_reached = statistics.median(row[1] for row in chosen)
            pace = to_marker / median_reached if median_reached > 0 else 1.0
            since = seconds(line.markers[0][2], as_of) - line.downtime - to_marker
            # what each peer needed after the marker had it gone at the median pace
            needed = [
                row[2] * median_reached / row[1] if median_reached > 0 and row[1] > 0 else row[2] for row in chosen
            ]
            if status == "running":
                remaining = tuple(max(percentile(needed, p) * pace - since, 0.0) for p in (0.25, 0.5, 0.75))
        end = as_of if status in ("running", "stalled") else line.last_event_at
        running = sum(b - a for a, b in stretches(line, end)) if line.markers else 0.0
        found[line.run_id] = LiveRun(
            line.run_id, status, label, silent, threshold, abandon, peer_set, len(chosen), pace, remaining, running
        )
    return found


def stretches(line: Timeline, end: datetime) -> list[tuple[float, float]]:
    """The run's running stretches as (start, end) in Unix seconds: a restart's downtime left out,
    each session running to its last event."""
    result, opened = [], line.markers[0][2]
    for i, (event, _, at, _) in enumerate(line.markers):
        if event == "run_start" and i > 0:
            result.append((opened.timestamp(), line.down[at].timestamp()))
            opened = at
    result.append((opened.timestamp(), end.timestamp()))
    return result


def collection_stretches(
    lines: dict[str, Timeline], live: dict[str, LiveRun], as_of: datetime, collection: str
) -> dict[str, list[tuple[float, float]]]:
    """Each run's stretches: to its final run_end, to the as-of time while it runs or is stalled
    (it may come back), else (abandoned, or measured by the profiler) to its last event."""
    found = {}
    for line in lines.values():
        if line.collection != collection:
            continue
        if line.ended_at is not None:
            end = line.ended_at
        elif line.run_id in live and live[line.run_id].live_status in ("running", "stalled"):
            end = as_of
        else:
            end = line.last_event_at
        found[line.run_id] = stretches(line, end)
    return found


def concurrency(all_stretches: list[tuple[float, float]]) -> tuple[float, float, int, float]:
    """(first start, last end, peak, run seconds) of a list of stretches: between each two
    consecutive instants where any stretch starts or ends, count the stretches that cover it."""
    instants = sorted({t for stretch in all_stretches for t in stretch})
    peak = 0
    for left, right in zip(instants, instants[1:], strict=False):
        covering = sum(1 for a, b in all_stretches if a <= left and b >= right)
        peak = max(peak, covering)
    return instants[0], instants[-1], peak, sum(b - a for a, b in all_stretches)


def goodput_timeline(line: Timeline, events: list[dict], live: dict[str, LiveRun], as_of: datetime) -> dict:
    """The goodput buckets a run's sessions give on their own (def_goodput), from its raw events:
    wall, down, redone, lost, silent and final_tail seconds, for logs without train_start (training
    begins at each run_start, so start-up is 0). A session ends at its last event before the next
    run_start; a disruption goes back to the latest checkpoint before it (the run's start without
    one): a restart's makes the training after it redone, a failed or abandoned run's end makes it
    lost. A stalled run's time runs on to the as-of time, silent after its last event. A final tail
    needs a run_end that is no stand-in and no checkpoint of a later step after the last epoch_end."""
    run_events = sorted((e for e in events if e["run_id"] == line.run_id), key=lambda e: e["_at"])
    starts = [at for event, _, at, _ in line.markers if event == "run_start"]
    checkpoints = [at for event, _, at, _ in line.markers if event == "checkpoint"]
    epoch_ends = [at for event, _, at, _ in line.markers if event == "epoch_end"]
    state = live.get(line.run_id)
    stalled = state is not None and state.live_status == "stalled"
    if line.ended_at is not None:
        end = line.ended_at
    elif state is not None and state.live_status in ("running", "stalled"):
        end = max(as_of, line.last_event_at)
    else:
        end = line.last_event_at
    sessions = []
    for index, start in enumerate(starts):
        following = starts[index + 1] if index + 1 < len(starts) else None
        if following is None:
            session_end = end
            active_end = line.last_event_at if stalled else end
            disrupted = line.status == "failed" or (state is not None and state.live_status == "abandoned")
        else:
            session_end = active_end = max(e["_at"] for e in run_events if start <= e["_at"] < following)
            disrupted = True
        # a checkpoint before the restart; for the run's end, one at the end itself is kept too
        kept_checkpoints = [at for at in checkpoints if (at < following if following else at <= end)]
        restored = (max(kept_checkpoints) if kept_checkpoints else starts[0]) if disrupted else None
        sessions.append((start, session_end, active_end, following, restored))
    has_tail = line.ended_at is not None and bool(epoch_ends)
    if has_tail:
        last_epoch_end = max((e for e in run_events if e["event"] == "epoch_end"), key=lambda e: e["_at"])
        run_end = max((e for e in run_events if e["event"] == "run_end"), key=lambda e: e["_at"])
        later_steps = [
            e
            for e in run_events
            if e["event"] == "checkpoint"
            and e["_at"] > last_epoch_end["_at"]
            and (e.get("step") is None or last_epoch_end.get("step") is None or e["step"] > last_epoch_end["step"])
        ]
        has_tail = not later_steps and run_end.get("is_approximate") is not True
    buckets = {"wall": seconds(starts[0], end), "down": 0.0, "redone": 0.0, "lost": 0.0, "silent": 0.0}
    buckets["final_tail"] = 0.0
    for index, (start, session_end, active_end, following, _) in enumerate(sessions):
        restores = [restored for _, _, _, _, restored in sessions[index:] if restored is not None]
        kept_until = active_end
        if restores and min(restores) < active_end:
            kept_until = max(start, min(restores))
            buckets["redone" if following is not None else "lost"] += seconds(kept_until, active_end)
        buckets["silent"] += seconds(active_end, session_end)
        if following is not None:
            buckets["down"] += seconds(session_end, following)
        if has_tail and max(epoch_ends) < kept_until:
            buckets["final_tail"] += seconds(max(start, max(epoch_ends)), kept_until)
    return buckets


def oracle_parts(run) -> dict[str, float]:
    """A run's wall time split at its markers, from the oracle's intervals: the pre-epoch ones are
    those up to the last that ends at an epoch_end."""
    ends = [i for i, (label, _) in enumerate(run.intervals) if label.endswith("-> epoch_end")]
    pre_epoch = [length for _, length in run.intervals[: ends[-1] + 1]] if ends else []
    parts = {
        "opening_block": pre_epoch[0] if pre_epoch else 0.0,
        "later_windows": sum(pre_epoch[1:]),
        "final_tail": run.tail or 0.0,
    }
    parts["other"] = run.wall - sum(parts.values())
    return parts


def oracle_throughput(run) -> tuple[float | None, float | None]:
    """(steps per active hour, seconds per 100 steps) from the oracle's interval labels: the
    pre-epoch intervals are those up to the last that ends at an epoch_end."""
    ends = [i for i, (label, _) in enumerate(run.intervals) if label.endswith("-> epoch_end")]
    pre_epoch = run.intervals[: ends[-1] + 1] if ends else []
    active, last_step, active_at_last = 0.0, None, None
    window_seconds = window_steps = 0.0
    for label, length in pre_epoch:
        start, end = label.split(" -> ")
        if end != "run_start":
            active += length
        if end.startswith("step_"):
            last_step, active_at_last = int(end[5:]), active
            if start.startswith("step_") and int(end[5:]) > int(start[5:]):
                window_seconds += length
                window_steps += int(end[5:]) - int(start[5:])
    if last_step is None:
        return None, None
    per_hour = last_step * 3600 / active_at_last if active_at_last else None
    return per_hour, (window_seconds * 100 / window_steps if window_steps else None)
