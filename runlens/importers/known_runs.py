"""The runs already in --into, as sample attribution sees them: their time windows and hosts.

Importing cluster GPU logs alone, after their runs were imported (or written by runlens' own
writer) into the same folder, attributes them by time (sample_attribution.py): each JSONL file
below --into is read for its runs' run_start, run_end and last `ts`, and the hosts their samples
name. Left out: the files this import writes again (those an earlier import of the same sources
wrote, `_import_sources.json`), the folders of cluster samples, and lines that are no JSON object.
A run without a run_start line is no candidate.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from .earlier_imports import SOURCES_FILE
from .sample_attribution import Window

SAMPLE_FOLDERS = ("nvidia_smi", "dcgm")  # what the cluster importers write: samples, no run


def _us(value) -> int | None:
    """A line's `ts` (RFC 3339 or Unix seconds) in microseconds; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return round(value * 1_000_000)
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace(" ", "T", 1))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _rewritten(out: Path, source_keys: set[str]) -> set[Path]:
    try:
        recorded = json.loads((out / SOURCES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {out / name for key, names in recorded.items() if key in source_keys for name in names}


def windows_in(out: Path, source_keys: set[str]) -> list[Window]:
    """The windows of the runs in out's JSONL files, but for the files of the given sources."""
    if not out.is_dir():
        return []
    skipped = _rewritten(out, source_keys)
    runs: dict[str, dict] = {}
    for path in sorted(out.rglob("*.jsonl")):
        relative = path.relative_to(out).parts
        if path in skipped or relative[0] in SAMPLE_FOLDERS or relative[-1].startswith(("_", ".")):
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for raw in lines:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(line, dict) or not isinstance(line.get("run_id"), str):
                continue
            ts = _us(line.get("ts"))
            if ts is None:
                continue
            run = runs.setdefault(line["run_id"], {"starts": [], "ends": [], "last": ts, "hosts": set()})
            run["last"] = max(run["last"], ts)
            if line.get("event") == "run_start":
                run["starts"].append(ts)
            elif line.get("event") == "run_end":
                run["ends"].append(ts)
            if isinstance(line.get("host"), str) and line["host"]:
                run["hosts"].add(line["host"])
    return [
        Window(run_id, min(run["starts"]), max(run["ends"]) if run["ends"] else run["last"], frozenset(run["hosts"]))
        for run_id, run in runs.items()
        if run["starts"]
    ]
