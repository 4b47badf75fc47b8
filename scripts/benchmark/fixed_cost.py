"""The fixed cost: what `runlens build` costs in a fresh process when there is next to nothing to
build. The command as a user runs it (dbt in-process: models and data tests, unit tests left to
`make test`) over 3 generated runs into a fresh database, after one first build that parses the
project cold (not counted), repeated; the median wall time is the fixed cost. dbt's elapsed time
and each node's seconds come from the command's --timings file; the rest of the wall time
(start-up: Python and dbt's imports, loading the project, the partial parse; the summary) is the
start-up."""

from __future__ import annotations

import os
import statistics
from pathlib import Path

from pipeline import RUNLENS, copy_project

from benchmark.datasets import LogSettings, generate_command
from benchmark.measure import Meter, where_time_goes
from benchmark.scratch import fresh_folder, remove

FIXED_COST_RUNS = 3


def command_environment(folder: Path, project: Path) -> dict[str, str]:
    """The command runs the bench's copy of the project, with dbt's cache in the bench's folder."""
    return {**os.environ, "RUNLENS_PROJECT_DIR": str(project), "RUNLENS_CACHE_DIR": str(folder / "cache")}


def generated(
    meter: Meter, folder: Path, runs: int, settings: LogSettings, result: dict, layout: str = "per-run"
) -> tuple[Path, Path | None]:
    """A fresh folder with `runs` generated runs (raw/, with their collections file) and a copy of
    the project; the project is None (and result says why) when the generator failed."""
    fresh_folder(folder)
    raw = folder / "raw"
    result["generate"] = meter.run(generate_command(runs, layout, raw, settings))
    if result["generate"]["returncode"] != 0:
        result["returncode"] = result["generate"]["returncode"]
        return raw, None
    return raw, copy_project(folder / "project")


def build_command(raw: Path, database: Path, timings: Path) -> list[str]:
    return [str(RUNLENS), "build", "--logs", str(raw), "--db", str(database), "--timings", str(timings)]


def measure(meter: Meter, folder: Path, settings: LogSettings, repeats: int, keep: bool = False) -> dict:
    """Generate FIXED_COST_RUNS runs, build once (cold parse), then `repeats` builds, each into a
    fresh database. Returns the builds' figures and their medians; returncode is not 0 when a step
    failed."""
    result: dict = {"runs": FIXED_COST_RUNS, "repeats": repeats, "builds": []}
    raw, project = generated(meter, folder, FIXED_COST_RUNS, settings, result)
    if project is None:
        return result
    environment = command_environment(folder, project)
    database, timings = folder / "fixed_cost.duckdb", folder / "timings.json"
    result["dbt_parse"] = meter.run(build_command(raw, database, timings), env=environment)
    if result["dbt_parse"]["returncode"] != 0:
        result["returncode"] = result["dbt_parse"]["returncode"]
        return result
    breakdowns = []
    for _ in range(repeats):
        remove(*folder.glob(f"{database.name}*"))
        build = meter.run(build_command(raw, database, timings), env=environment)
        result["builds"].append(build)
        if build["returncode"] != 0:
            result["returncode"] = build["returncode"]
            return result
        breakdown = where_time_goes(timings)
        breakdowns.append(breakdown)
        build["dbt_elapsed_seconds"] = breakdown["dbt_elapsed_seconds"]
        build["nodes"] = sum(breakdown["node_counts"].values())
        build["startup_seconds"] = round(build["seconds"] - build["dbt_elapsed_seconds"], 3)
    builds = result["builds"]
    walls = [build["seconds"] for build in builds]
    median_wall = statistics.median(walls)
    nearest = min(range(len(builds)), key=lambda index: abs(walls[index] - median_wall))
    result.update(
        {
            "returncode": 0,
            "seconds": round(median_wall, 3),
            "dbt_elapsed_seconds": round(statistics.median(b["dbt_elapsed_seconds"] for b in builds), 3),
            "startup_seconds": round(statistics.median(b["startup_seconds"] for b in builds), 3),
            "nodes": builds[nearest]["nodes"],
            "peak_rss_mb": max(build["peak_rss_mb"] or 0 for build in builds) or None,
            "where_time_goes": breakdowns[nearest],
        }
    )
    if not keep:
        remove(raw, project, *folder.glob(f"{database.name}*"))
    return result
