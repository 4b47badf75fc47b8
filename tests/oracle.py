"""A small, independent plain-Python reading of the metric definitions (models/marts/_marts__docs.md).

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


def seconds(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds()


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
    downtime = sum(s for (label, s) in intervals if label.endswith("-> run_start"))
    epoch_ends = [m for m in kept if m["event"] == "epoch_end"]
    start_at = kept[0]["_at"]
    if final_end is not None:
        end = markers[final_end]
        status = "completed" if end.get("status", "completed") == "completed" else "failed"
        wall, source = seconds(start_at, end["_at"]), "event_log"
        pre_tail = seconds(start_at, epoch_ends[-1]["_at"]) if epoch_ends else None
        tail = seconds(epoch_ends[-1]["_at"], end["_at"]) if epoch_ends else None
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
        "p90_wall_seconds": percentile(walls, 90),
        "p95_wall_seconds": percentile(walls, 95),
        "slowest_to_fastest_task_ratio": max(task_means.values()) / min(task_means.values()),
    }


def percentile(values: list[float], percent: int) -> float:
    """The inclusive (linear) percentile, as spreadsheets' PERCENTILE.INC computes it."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]
