"""dbt's fixed cost: what a `dbt build` costs when there is next to nothing to build. The build
scripts/build.py runs (models and data tests, unit tests left to `make test`) over 3 generated runs
into a fresh database, after one cold `dbt parse`, repeated; the median wall time is the fixed cost.
dbt's own start-up is the wall time less dbt's elapsed time (target/run_results.json)."""

from __future__ import annotations

import statistics
from pathlib import Path

from build import REFRESH as DBT_BUILD
from pipeline import copy_project

from benchmark.datasets import LogSettings, generate_command
from benchmark.measure import Meter, run_results_of, where_time_goes
from benchmark.scratch import fresh_folder, remove

FIXED_COST_RUNS = 3


def measure(meter: Meter, folder: Path, settings: LogSettings, repeats: int, keep: bool = False) -> dict:
    """Generate FIXED_COST_RUNS runs, parse once (cold), then `repeats` builds, each into a fresh
    database. Returns the builds' figures and their medians; returncode is not 0 when a step failed."""
    fresh_folder(folder)
    raw = folder / "raw"
    result: dict = {"runs": FIXED_COST_RUNS, "repeats": repeats, "builds": []}
    result["generate"] = meter.run(generate_command(FIXED_COST_RUNS, "per-run", raw, settings))
    if result["generate"]["returncode"] != 0:
        result["returncode"] = result["generate"]["returncode"]
        return result
    project = copy_project(folder / "project")
    # one database path for the parse and every build: dbt reparses the whole project when an
    # environment variable its profile reads (RUNLENS_DB) changes, so each build starts from the
    # same warm partial parse, and the database is removed before each build instead
    database = folder / "fixed_cost.duckdb"
    result["dbt_parse"] = meter.dbt(project, raw, database, "parse")
    if result["dbt_parse"]["returncode"] != 0:
        result["returncode"] = result["dbt_parse"]["returncode"]
        return result
    breakdowns = []
    for _ in range(repeats):
        remove(*folder.glob(f"{database.name}*"))
        build = meter.dbt(project, raw, database, *DBT_BUILD)
        result["builds"].append(build)
        if build["returncode"] != 0:
            result["returncode"] = build["returncode"]
            return result
        breakdown = where_time_goes(run_results_of(project))
        breakdowns.append(breakdown)
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
