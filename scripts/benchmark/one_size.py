"""One benchmark size end to end: generate the logs, parse once (cold), the full `dbt build`, the
build with nothing changed, `dbt run` into a fresh database, report rendering, the baselines (each
in its own measured process, checked against the marts), the two refreshes and the refreshed marts
checked against the simple floor again."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from build import REFRESH as DBT_BUILD
from pipeline import REPO, copy_project, run_dbt

from benchmark.datasets import (
    LogSettings,
    add_new_runs,
    append_events,
    files_on_disk,
    generate_command,
    layout_for,
    line_counts,
)
from benchmark.measure import Meter, run_results_of, where_time_goes
from benchmark.scratch import fresh_folder, remove
from benchmark.targets import ratios

BENCH = REPO / "scripts" / "bench.py"
BASELINES = ("floor", "fair_floor", "pandas")  # bench.py's internal modes _floor, _fair_floor, _pandas


def run_baseline(meter: Meter, mode: str, raw_dir: Path, marts_db: Path, out_json: Path) -> dict:
    """Run a baseline in its own measured process (`bench.py _<mode>`): process_seconds is the whole
    process, seconds the computation alone (its query_seconds), check its agreement with the marts.
    A baseline not written yet gives {"not_run": why}."""
    out_json.unlink(missing_ok=True)
    figures = meter.run([sys.executable, str(BENCH), f"_{mode}", str(raw_dir), str(marts_db), str(out_json)])
    figures["process_seconds"] = figures.pop("seconds")
    if figures["returncode"] == 0:
        output = json.loads(out_json.read_text())
        if "not_run" in output:
            return {"not_run": output["not_run"]}
        figures["seconds"] = output.pop("query_seconds", None)
        figures.update(output)
    return figures


def measure(
    runs: int,
    meter: Meter,
    work: Path,
    settings: LogSettings,
    skip: set[str],
    fixed_cost_seconds: float | None,
    keep: bool = False,
) -> dict:
    """Every step at `runs` runs under work/runs_<runs>; returns the size's figures, with the names
    of failed steps and disagreeing checks in "failures"."""
    layout = layout_for(runs)
    size_dir = fresh_folder(work / f"runs_{runs}")
    raw, database = size_dir / "raw", size_dir / "runlens.duckdb"
    entry: dict = {"runs": runs, "layout": layout, "shard_runs": settings.shard_runs if layout == "sharded" else None}
    failures: list[str] = []

    def step(name: str, figures: dict) -> dict:
        entry[name] = figures
        if figures.get("returncode", 0) != 0:
            failures.append(name)
        return figures

    def checked(name: str, figures: dict, check_name: str) -> None:
        step(name, figures)
        if figures.get("returncode") == 0 and not figures["check"]["ok"]:
            failures.append(check_name)

    def say(text: str) -> None:
        print(f"[{runs} runs] {text}", flush=True)

    entry["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    say(f"generating ({layout})")
    step("generate", meter.run(generate_command(runs, layout, raw, settings)))
    entry.update(files_on_disk(raw))

    project = copy_project(size_dir / "project")
    say("dbt parse (cold, once)")
    step("dbt_parse", meter.dbt(project, raw, database, "parse"))
    say("dbt build (full)")
    build = step("dbt_build", meter.dbt(project, raw, database, *DBT_BUILD))
    if build["returncode"] != 0:
        say("dbt build FAILED; skipping the rest of this size")
        entry["failures"] = failures
        return entry
    shutil.copy2(run_results_of(project), size_dir / "run_results_build.json")
    entry["where_time_goes"] = where_time_goes(size_dir / "run_results_build.json")
    entry.update(line_counts(database))

    if "noop" not in skip:
        say("dbt build (nothing changed)")
        step("dbt_build_noop", meter.dbt(project, raw, database, *DBT_BUILD))
        shutil.copy2(run_results_of(project), size_dir / "run_results_noop.json")
        entry["where_time_goes_noop"] = where_time_goes(size_dir / "run_results_noop.json")
    if "run" not in skip:
        say("dbt run (models only, fresh database)")
        run_project = copy_project(size_dir / "project_run")
        run_db = size_dir / "run_only.duckdb"
        run_dbt(run_project, raw, run_db, "parse")
        run_dbt(run_project, raw, run_db, "seed")
        step("dbt_run", meter.dbt(run_project, raw, run_db, "run"))
        run_db.unlink(missing_ok=True)
    if "render" not in skip:
        say("render reports")
        render = [sys.executable, str(REPO / "scripts" / "render_report.py"), "--db", str(database)]
        step("render_report", meter.run([*render, "--out", str(size_dir / "reports")]))

    for mode in BASELINES:
        if mode in skip:
            continue
        say(mode.replace("_", " "))
        figures = run_baseline(meter, mode, raw, database, size_dir / f"{mode}.json")
        if "not_run" in figures:
            say(f"{mode.replace('_', ' ')}: not run ({figures['not_run']})")
            entry[mode] = figures
        else:
            checked(mode, figures, f"{mode}_check")

    if "refresh" not in skip:
        say("refresh: 1% new runs")
        added = add_new_runs(raw, runs, layout, settings)
        refresh = step("refresh_new_runs", meter.dbt(project, raw, database, *DBT_BUILD))
        refresh.update(added)
        shutil.copy2(run_results_of(project), size_dir / "run_results_refresh_new.json")
        say("refresh: events appended to 1% of the runs")
        appended = append_events(raw, layout, runs, settings)
        refresh = step("refresh_appends", meter.dbt(project, raw, database, *DBT_BUILD))
        refresh.update(appended)
        say("check the refreshed marts against the floor")
        figures = run_baseline(meter, "floor", raw, database, size_dir / "floor_after_refresh.json")
        checked("refresh_check", figures, "refresh_check")

    entry["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    entry["ratios"] = ratios(entry, fixed_cost_seconds)
    entry["failures"] = failures
    if not keep:
        remove(raw, database, size_dir / "project", size_dir / "project_run")
    return entry
