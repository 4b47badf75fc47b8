"""The traces step (--with-traces): RUNS runs written one folder a run with a profiler trace of
about EVENTS events each beside their logs (trace_data.py), built by `runlens build` into a fresh
database, against the same runs' logs without the traces built the same way and the floor
(trace_floor.py, `bench.py _trace_floor`): what the traces add to the build (with less without)
against what the hand-written query needs (its query seconds; the issue's target: at most 2x), with
each process's peak memory and where the build's time went."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scripts.benchmark import trace_data
from scripts.benchmark.fixed_cost import Installation, runlens_build
from scripts.benchmark.measure import Meter, where_time_goes
from scripts.benchmark.scratch import fresh_folder, remove

BENCH = Path(__file__).resolve().parent.parent / "bench.py"
TARGET_MULTIPLE = 2.0


def measure(meter: Meter, folder: Path, install: Installation, runs: int, events: int, keep: bool = False) -> dict:
    fresh_folder(folder)
    with_traces, without_traces = folder / "raw_traces", folder / "raw_logs"
    print(f"[traces] writing {runs} runs with a trace of about {events:,} events each", flush=True)
    figures: dict = {"runs": runs, "events_per_trace": events}
    figures.update(trace_data.write_dataset(with_traces, without_traces, runs, events))
    builds = {}
    for name, raw in (("without_traces", without_traces), ("with_traces", with_traces)):
        print(f"[traces] runlens build {name.replace('_', ' ')}", flush=True)
        database, timings = folder / f"{name}.duckdb", folder / f"timings_{name}.json"
        builds[name] = runlens_build(meter, install, raw, database, timings)
        if builds[name]["returncode"] == 0 and timings.exists():
            builds[name]["where_time_goes"] = where_time_goes(timings)
    figures.update(builds)
    if builds["with_traces"]["returncode"] == 0:
        print("[traces] the floor: one hand-written DuckDB query over the same traces", flush=True)
        out = folder / "trace_floor.json"
        marts = folder / "with_traces.duckdb"
        floor = meter.run([sys.executable, str(BENCH), "_trace_floor", str(with_traces), str(marts), str(out)])
        if floor["returncode"] == 0:
            result = json.loads(out.read_text())
            floor["process_seconds"], floor["seconds"] = floor["seconds"], result["query_seconds"]
            floor["check"] = result["check"]
        figures["floor"] = floor
    figures.update(judged(figures))
    if not keep:
        remove(with_traces, without_traces, *folder.glob("*.duckdb*"))
    return figures


def judged(figures: dict) -> dict:
    """What the traces added to the build and its multiple of the floor, and whether that meets the
    target (None when a figure is missing)."""
    with_traces, without = figures.get("with_traces") or {}, figures.get("without_traces") or {}
    floor = figures.get("floor") or {}
    if with_traces.get("returncode") != 0 or without.get("returncode") != 0 or floor.get("returncode") != 0:
        return {"added_seconds": None, "multiple_of_floor": None, "target_met": None}
    added = round(with_traces["seconds"] - without["seconds"], 3)
    multiple = round(added / floor["seconds"], 2) if floor.get("seconds") else None
    return {
        "added_seconds": added,
        "multiple_of_floor": multiple,
        "target_multiple": TARGET_MULTIPLE,
        "target_met": None if multiple is None else multiple <= TARGET_MULTIPLE and floor["check"]["ok"],
    }
