"""The utilization step (--with-utilization RUNS): what utilization samples add to a build.

Generates RUNS runs of 6 hours with samples every 15 s of 8 GPUs and the host, one file per run
(benchmark/utilization_logs.py), and the same runs without their samples in a folder of their own;
then, each `runlens build` in a fresh process with the bench's installation (replaying the plans the
fixed cost step recorded, as the size steps do):
- the full build of each folder into a fresh database (wall time, peak memory, where the time went);
- the floor (benchmark/utilization_floor.py, in its own measured process): one hand-written DuckDB
  query over the files with samples giving every interval's time-weighted mean GPU utilization,
  checked interval by interval against fct_run_interval_utilization (mismatches reported);
- a refresh of each folder after one run's file grew by its last hour (its samples, its epoch_end
  and run_end; without samples, the two markers alone), and the floor checked again.

The figures the targets read (targets.py): the samples' added build time (with - without), its
ratio to the floor, and each run's share of it (added time / RUNS); the refresh with samples
against the refresh without plus one run's share."""

from __future__ import annotations

import time
from pathlib import Path

from scripts.benchmark import utilization_logs
from scripts.benchmark.fixed_cost import Installation, runlens_build
from scripts.benchmark.measure import Meter, seconds_of, where_time_goes
from scripts.benchmark.one_size import run_baseline
from scripts.benchmark.scratch import fresh_folder, remove

DEFAULT_RUNS = 1_000


def figures_of(entry: dict) -> dict:
    """The step's derived figures: the samples' added build seconds, over the floor, per run, and
    the refresh budget (the refresh without samples plus one run's share)."""
    with_samples = seconds_of(entry.get("build_with_samples"))
    without = seconds_of(entry.get("build_without_samples"))
    floor = seconds_of(entry.get("floor"))
    refresh_with = seconds_of(entry.get("refresh_with_samples"))
    refresh_without = seconds_of(entry.get("refresh_without_samples"))
    out: dict = {}
    if with_samples is None or without is None:
        return out
    added = with_samples - without
    share = added / entry["runs"]
    out["added_seconds"] = round(added, 3)
    out["run_share_seconds"] = round(share, 4)
    if floor:
        out["added_over_floor"] = round(added / floor, 2)
    if refresh_with is not None and refresh_without is not None:
        budget = refresh_without + max(share, 0.0)
        out["refresh_budget_seconds"] = round(budget, 3)
        out["refresh_over_budget"] = round(refresh_with / budget, 2)
    return out


def measure(runs: int, meter: Meter, work: Path, install: Installation, seed: int, keep: bool = False) -> dict:
    """The step at `runs` runs under work/utilization_<runs>; "failures" names failed steps and
    disagreeing checks."""
    folder = fresh_folder(work / f"utilization_{runs}")
    raw = {"with_samples": folder / "with_samples", "without_samples": folder / "without_samples"}
    databases = {kind: folder / f"{kind}.duckdb" for kind in raw}
    entry: dict = {"runs": runs, "layout": "per-run"}
    failures: list[str] = []

    def say(text: str) -> None:
        print(f"[utilization, {runs:,} runs] {text}", flush=True)

    def step(name: str, figures: dict) -> dict:
        entry[name] = figures
        if figures.get("returncode", 0) != 0:
            failures.append(name)
        return figures

    def build(name: str, kind: str) -> dict:
        timings = folder / f"timings_{name}.json"
        figures = step(name, runlens_build(meter, install, raw[kind], databases[kind], timings))
        if figures["returncode"] == 0:
            figures["where_time_goes"] = where_time_goes(timings)
        return figures

    def floor(name: str) -> None:
        figures = step(name, run_baseline(meter, "utilization_floor", raw["with_samples"], databases["with_samples"],
                                          folder / f"{name}.json"))  # fmt: skip
        if figures.get("returncode") == 0 and not figures["check"]["ok"]:
            failures.append(f"{name}_check")

    say("generating (one file per run, with and without samples)")
    started = time.perf_counter()
    counts = utilization_logs.write(raw["with_samples"], raw["without_samples"], runs, seed)
    step("generate", {"seconds": round(time.perf_counter() - started, 3), "returncode": 0, **counts})
    for kind in raw:
        say(f"runlens build {kind.replace('_', ' ')} (full, fresh database)")
        build(f"build_{kind}", kind)
    if entry["build_with_samples"]["returncode"] == 0:
        say("the floor: one DuckDB query over the samples, checked against the marts")
        floor("floor")
    for kind in raw:
        if entry[f"build_{kind}"]["returncode"] != 0:
            continue
        say(f"refresh {kind.replace('_', ' ')}: one run's file grew by its last hour")
        grown = utilization_logs.grow(raw[kind], seed, kind == "with_samples")
        build(f"refresh_{kind}", kind).update(grown)
    if (entry.get("refresh_with_samples") or {}).get("returncode") == 0:
        say("the floor again, against the refreshed marts")
        floor("floor_after_refresh")
    entry["figures"] = figures_of(entry)
    entry["failures"] = failures
    if not keep:
        remove(*raw.values(), *[path for database in databases.values() for path in folder.glob(f"{database.name}*")])
    return entry
