"""The fixed cost: what `runlens build` costs in a fresh process when there is next to nothing to
build; the plans every later `runlens build` of the bench replays; and what a plain `dbt build`
costs over the same runs.

Every `runlens` command of the bench runs one installation (Installation): one copy of the dbt
project and one cache folder (RUNLENS_CACHE_DIR), as a user's install has, with the as-of time
pinned (RUNLENS_AS_OF=BENCH_AS_OF). The first `runlens build` in a situation (a fresh database; an
already-built one) runs dbt in-process, node by node, and records dbt's plan in the cache folder;
later builds in the same situation replay it in one DuckDB connection (runlens/refresh/dbt_build.py). The
step, over 3 generated runs:
- one first build into a fresh database: dbt parses the project cold and records the plan of a
  fresh database (not counted);
- `repeats` builds, each in a fresh process into a fresh database (that plan replayed): the median
  wall time is the fixed cost; the --timings file gives the elapsed time (the plan's reading, nodes
  and commit), its phases and nodes; the rest of the wall time (Python's imports, finding the plan,
  closing the database, the summary) is the start-up;
- a plain `dbt build` (the dbt command line with `runlens build`'s REFRESH; Meter.dbt) over the same
  3 runs into a fresh database in a fresh process, in a copy of the project of its own: once to
  parse the project cold (not counted), then `repeats` times; the median wall time is the figure
  of the plain-dbt target;
- one new run's file, then one more `runlens build` over the last repeat's database (not counted):
  it records the plan of an already-built database, so that the size steps' refreshes and the
  watch's refreshes replay a plan, as a user's builds do after their first of each kind.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path

from runlens.refresh.build import REFRESH as DBT_BUILD
from scripts import generate_sample
from scripts.benchmark.datasets import BENCH_AS_OF, LogSettings, generate_command
from scripts.benchmark.measure import Meter, run_results_of, timings_figures, where_time_goes
from scripts.benchmark.scratch import fresh_folder, remove
from tests.support.pipeline import RUNLENS, copy_project

FIXED_COST_RUNS = 3
NOTHING_CHANGED = "nothing changed since"  # runlens build's line when no model ran (runlens/refresh/build.py)


@dataclass(frozen=True)
class Installation:
    """The runlens every command of the bench runs: a copy of the dbt project (RUNLENS_PROJECT_DIR)
    and one cache folder (RUNLENS_CACHE_DIR: dbt's parse state and the recorded plans), with the
    as-of time pinned. A plan serves a build only from the same project copy and cache folder."""

    project: Path
    cache: Path

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "RUNLENS_PROJECT_DIR": str(self.project),
            "RUNLENS_CACHE_DIR": str(self.cache),
            "RUNLENS_AS_OF": BENCH_AS_OF,
        }

    def plans(self) -> int:
        """How many plans the cache folder holds (<cache>/plans/*.json): one more after a command
        means dbt ran and recorded one."""
        return sum(1 for _ in self.cache.glob("plans/*.json"))


def installation(folder: Path) -> Installation:
    """A fresh installation under folder: a new copy of the project and an empty cache folder (so no
    plan or parse state of an earlier bench run is found)."""
    fresh_folder(folder)
    (folder / "cache").mkdir()
    return Installation(copy_project(folder / "project"), folder / "cache")


def generated(meter: Meter, folder: Path, runs: int, settings: LogSettings, result: dict, layout: str = "per-run"):
    """A fresh folder with `runs` generated runs in raw/ (with their collections file); None (and
    result says why) when the generator failed."""
    fresh_folder(folder)
    raw = folder / "raw"
    result["generate"] = meter.run(generate_command(runs, layout, raw, settings))
    if result["generate"]["returncode"] != 0:
        result["returncode"] = result["generate"]["returncode"]
        return None
    return raw


def build_command(raw: Path, database: Path, timings: Path) -> list[str]:
    return [str(RUNLENS), "build", "--logs", str(raw), "--db", str(database), "--timings", str(timings)]


def runlens_build(
    meter: Meter, install: Installation, raw: Path, database: Path, timings: Path, *, pinned: bool = True
) -> dict:
    """`runlens build` measured in a fresh process (wall s, peak memory of that process), with what
    its --timings file says (timings_figures: replayed, phases, elapsed, nodes) and whether it said
    that nothing changed (no model ran). pinned=False: the as-of time not pinned (RUNLENS_AS_OF
    unset), as users run it: the build's start is its as-of time."""
    timings.unlink(missing_ok=True)
    environment = install.environment()
    if not pinned:
        environment.pop("RUNLENS_AS_OF", None)
    figures, process = meter.run_process(build_command(raw, database, timings), env=environment)
    figures["nothing_changed"] = NOTHING_CHANGED in process.stderr
    if figures["returncode"] == 0 and timings.exists():
        figures.update(timings_figures(timings))
    return figures


def add_one_run(raw: Path, index: int, settings: LogSettings) -> None:
    """One new run's file (run number index of the scale data set) in the per-run layout."""
    generate_sample.write_scale(
        raw, settings.seed, index, 1, "per-run", settings.shard_runs, settings.fault_rate, settings.shape
    )


def record_plans(meter: Meter, folder: Path, install: Installation, settings: LogSettings) -> dict:
    """The plans alone (when the fixed cost step is skipped): a first build of 3 runs into a fresh
    database, then one new run and a build over it; nothing counted."""
    result: dict = {"runs": FIXED_COST_RUNS}
    raw = generated(meter, folder, FIXED_COST_RUNS, settings, result)
    if raw is None:
        return result
    database, timings = folder / "plans.duckdb", folder / "timings.json"
    result["first_build"] = runlens_build(meter, install, raw, database, timings)
    if result["first_build"]["returncode"] == 0:
        add_one_run(raw, FIXED_COST_RUNS, settings)
        result["incremental_plan"] = runlens_build(meter, install, raw, database, timings)
    codes = [result[name]["returncode"] for name in ("first_build", "incremental_plan") if name in result]
    result["returncode"] = next((code for code in codes if code != 0), 0)
    remove(folder)
    return result


def _median_nearest(builds: list[dict]) -> tuple[float, int]:
    """The median wall time of builds and the index of the build nearest it."""
    walls = [build["seconds"] for build in builds]
    median_wall = statistics.median(walls)
    return median_wall, min(range(len(builds)), key=lambda index: abs(walls[index] - median_wall))


def plain_dbt(meter: Meter, folder: Path, raw: Path, repeats: int) -> dict:
    """A plain `dbt build` over raw, each time into a fresh database in a fresh process, in a copy
    of the project of its own: once to parse cold (not counted), then `repeats` times."""
    result: dict = {"runs": FIXED_COST_RUNS, "repeats": repeats, "builds": []}
    project = copy_project(folder / "plain_project")
    database = folder / "plain.duckdb"
    environment = {"RUNLENS_AS_OF": BENCH_AS_OF}
    breakdowns = []
    for number in range(repeats + 1):
        remove(*folder.glob(f"{database.name}*"))
        build = meter.dbt(project, raw, database, *DBT_BUILD, env=environment)
        if number == 0:
            result["warm_up"] = build
        else:
            result["builds"].append(build)
        if build["returncode"] != 0:
            result["returncode"] = build["returncode"]
            remove(project, *folder.glob(f"{database.name}*"))
            return result
        if number:
            breakdowns.append(where_time_goes(run_results_of(project)))
    median_wall, nearest = _median_nearest(result["builds"])
    result.update(
        {
            "returncode": 0,
            "seconds": round(median_wall, 3),
            "dbt_elapsed_seconds": round(statistics.median(b["dbt_elapsed_seconds"] for b in result["builds"]), 3),
            "peak_rss_mb": max(build["peak_rss_mb"] or 0 for build in result["builds"]) or None,
            "where_time_goes": breakdowns[nearest],
        }
    )
    remove(project, *folder.glob(f"{database.name}*"))
    return result


def measure(
    meter: Meter,
    folder: Path,
    install: Installation,
    settings: LogSettings,
    repeats: int,
    keep: bool = False,
    with_plain_dbt: bool = True,
) -> dict:
    """Generate FIXED_COST_RUNS runs, build once (cold parse, the fresh database's plan recorded),
    then `repeats` builds, each into a fresh database; then the plain `dbt build` measured and the
    incremental plan recorded. Returns the builds' figures and their medians; returncode is not 0
    when the first build or a counted build failed (the incremental plan and the plain dbt build
    say their own)."""
    result: dict = {"runs": FIXED_COST_RUNS, "repeats": repeats, "builds": []}
    raw = generated(meter, folder, FIXED_COST_RUNS, settings, result)
    if raw is None:
        return result
    database, timings = folder / "fixed_cost.duckdb", folder / "timings.json"
    result["first_build"] = runlens_build(meter, install, raw, database, timings)
    if result["first_build"]["returncode"] != 0:
        result["returncode"] = result["first_build"]["returncode"]
        return result
    breakdowns = []
    for _ in range(repeats):
        remove(*folder.glob(f"{database.name}*"))
        build = runlens_build(meter, install, raw, database, timings)
        result["builds"].append(build)
        if build["returncode"] != 0:
            result["returncode"] = build["returncode"]
            return result
        breakdowns.append(where_time_goes(timings))
        build["startup_seconds"] = round(build["seconds"] - build["dbt_elapsed_seconds"], 3)
    builds = result["builds"]
    median_wall, nearest = _median_nearest(builds)
    result.update(
        {
            "returncode": 0,
            "seconds": round(median_wall, 3),
            "dbt_elapsed_seconds": round(statistics.median(b["dbt_elapsed_seconds"] for b in builds), 3),
            "startup_seconds": round(statistics.median(b["startup_seconds"] for b in builds), 3),
            "nodes": builds[nearest]["nodes"],
            "replayed": all(build["replayed"] == [True] for build in builds),
            "phases": builds[nearest]["phases"],
            "peak_rss_mb": max(build["peak_rss_mb"] or 0 for build in builds) or None,
            "where_time_goes": breakdowns[nearest],
        }
    )
    if with_plain_dbt:  # over the same 3 runs, into a database of its own
        result["plain_dbt"] = plain_dbt(meter, folder, raw, repeats)
    add_one_run(raw, FIXED_COST_RUNS, settings)
    result["incremental_plan"] = runlens_build(meter, install, raw, database, timings)
    remove(*folder.glob(f"{database.name}*"))
    if not keep:
        remove(raw)
    return result
