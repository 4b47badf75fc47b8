"""One benchmark size end to end: generate the logs; the full `runlens build` into a fresh
database; the build with nothing changed; report rendering; the baselines (each in its own measured
process, checked against the marts); the two refreshes; and the refreshed marts checked against the
simple floor again.

Every build is `runlens build` in a fresh process, the command users run (fixed_cost.py
runlens_build), with the bench's installation: the project copy and cache folder the fixed cost
step ran in, so the builds replay the plans dbt recorded there (the plan of a fresh database for
the full build, that of a built database for the refreshes), the steady state a user is in after
their first build of each kind; the as-of time pinned (BENCH_AS_OF), so that a build over a folder
that did not change runs nothing. Each build's --timings file (dbt's run_results shape) gives its
elapsed time, whether it replayed a plan and the plan's phases, and where its time went; its peak
memory is that of the `runlens build` process. (`dbt run` into a fresh database, which the bench
timed before, is gone: it told how dbt's node-by-node walk splits between models and tests, which
each build's own timings now say by node type.)"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from scripts.benchmark.datasets import (
    LogSettings,
    add_new_runs,
    add_new_sweep,
    append_events,
    files_on_disk,
    generate_command,
    layout_for,
    line_counts,
)
from scripts.benchmark.fixed_cost import Installation, runlens_build
from scripts.benchmark.measure import Meter, where_time_goes
from scripts.benchmark.scratch import fresh_folder, remove
from scripts.benchmark.targets import ratios
from tests.support.pipeline import REPO

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
    install: Installation,
    settings: LogSettings,
    skip: set[str],
    fixed_cost_seconds: float | None,
    keep: bool = False,
    layout: str | None = None,
    name: str | None = None,
) -> dict:
    """Every step at `runs` runs under work/runs_<runs> (work/<name> for a layout step: layouts.py);
    returns the size's figures, with the names of failed steps and disagreeing checks in
    "failures". layout: the generator's (per-run, sharded with settings.shard_runs runs a file);
    by default the size's own (layout_for)."""
    layout = layout or layout_for(runs)
    size_dir = fresh_folder(work / (name or f"runs_{runs}"))
    raw, database = size_dir / "raw", size_dir / "runlens.duckdb"
    entry: dict = {"runs": runs, "layout": layout, "shard_runs": settings.shard_runs if layout == "sharded" else None}
    if name:
        entry["name"] = name
    failures: list[str] = []

    def step(name: str, figures: dict) -> dict:
        entry[name] = figures
        if figures.get("returncode", 0) != 0:
            failures.append(name)
        return figures

    def build(name: str, pinned: bool = True) -> dict:
        """`runlens build` as the step `name`; its timings file kept as size_dir/timings_<name>.json."""
        timings = size_dir / f"timings_{name}.json"
        return step(name, runlens_build(meter, install, raw, database, timings, pinned=pinned))

    def checked(name: str, figures: dict, check_name: str) -> None:
        step(name, figures)
        if figures.get("returncode") == 0 and not figures["check"]["ok"]:
            failures.append(check_name)

    def say(text: str) -> None:
        print(f"[{runs} runs{', ' + name if name else ''}] {text}", flush=True)

    entry["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    say(f"generating ({layout})")
    step("generate", meter.run(generate_command(runs, layout, raw, settings)))
    entry.update(files_on_disk(raw))

    say("runlens build (full, fresh database)")
    if build("build")["returncode"] != 0:
        say("runlens build FAILED; skipping the rest of this size")
        entry["failures"] = failures
        return entry
    entry["where_time_goes"] = where_time_goes(size_dir / "timings_build.json")
    entry.update(line_counts(database))

    if "noop" not in skip:
        say("runlens build (nothing changed)")
        if build("build_noop")["returncode"] == 0:
            entry["where_time_goes_noop"] = where_time_goes(size_dir / "timings_build_noop.json")
        # as users run it: nothing changed, the as-of time not pinned, so it moves to the build's start
        # (the later steps pin it again: their builds move it back, with their changes)
        say("runlens build (nothing changed, the clock moving)")
        if build("build_clock", pinned=False)["returncode"] == 0:
            entry["where_time_goes_clock"] = where_time_goes(size_dir / "timings_build_clock.json")
    if "render" not in skip:
        say("render reports")
        render = [sys.executable, "-m", "runlens.cli", "report", "--db", str(database)]
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
        say("refresh: 1% new runs, spread over every task")
        added = add_new_runs(raw, runs, layout, settings)
        build("refresh_new_runs").update(added)
        say("refresh: 1% new runs in one new collection")
        swept = add_new_sweep(raw, runs + added["runs_added"], runs, layout, settings)
        build("refresh_new_sweep").update(swept)
        say("refresh: events appended to 1% of the runs")
        appended = append_events(raw, layout, runs, settings)
        build("refresh_appends").update(appended)
        say("check the refreshed marts against the floor")
        figures = run_baseline(meter, "floor", raw, database, size_dir / "floor_after_refresh.json")
        checked("refresh_check", figures, "refresh_check")

    entry["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    entry["ratios"] = ratios(entry, fixed_cost_seconds)
    entry["failures"] = failures
    if not keep:
        remove(raw, *size_dir.glob(f"{database.name}*"))
    return entry
