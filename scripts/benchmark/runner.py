"""The whole benchmark run: one installation of runlens for every `runlens` command (a project copy
and a cache folder, made fresh: fixed_cost.Installation), the fixed cost (which records the plans
the later builds replay; recorded alone when the step is skipped), a refresh inside `runlens
watch`, `make sample`, every size, the other engines, the test suite on a fresh clone; the targets
judged; benchmarks.json written after each step (so a stopped run can be rendered again) and
benchmarks.md at the end; a summary printed."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from scripts.benchmark import (
    fixed_cost,
    fresh_clone_tests,
    layouts,
    make_sample,
    one_size,
    other_engines,
    trace_builds,
    utilization,
    watch_refresh,
)
from scripts.benchmark.agreement import TOLERANCE_S
from scripts.benchmark.console import summary
from scripts.benchmark.datasets import BENCH_AS_OF, SHARDED_FROM, LogSettings
from scripts.benchmark.machine import machine
from scripts.benchmark.markdown import write_results
from scripts.benchmark.measure import Meter
from scripts.benchmark.scratch import remove
from scripts.benchmark.targets import targets
from tests.support.pipeline import REPO


def _step_failed(figures: dict | None) -> bool:
    return bool(figures) and figures.get("returncode", 0) != 0


def failures_of(report: dict) -> list[str]:
    """The failed steps and disagreeing checks of a report, one string each."""
    steps = ("fixed_cost", "make_sample", "test_suite")
    failed = [name for name in steps if _step_failed(report.get(name))]
    fixed = report.get("fixed_cost") or {}
    for name, what in (("plain_dbt", "plain dbt build"), ("incremental_plan", "recording the incremental plan")):
        if _step_failed(fixed.get(name)):
            failed.append(f"fixed_cost: {what}")
    if _step_failed(report.get("plans")):
        failed.append("recording the plans")
    failed += [f"watch over {w['runs']} runs" for w in report.get("watch_refreshes") or [] if _step_failed(w)]
    failed += [f"{entry['runs']}: {', '.join(entry['failures'])}" for entry in report["sizes"] if entry.get("failures")]
    failed += [
        f"{entry['runs']} ({entry['title']}): {', '.join(entry['failures'])}"
        for entry in report.get("layouts") or []
        if entry.get("failures")
    ]
    traces = report.get("traces") or {}
    steps = ("without_traces", "with_traces", "floor")
    failed += [f"traces: {name}" for name in steps if _step_failed(traces.get(name))]
    if traces.get("floor", {}).get("check", {}).get("ok") is False:
        failed.append("traces: the floor disagrees with fct_run_steps")
    samples = report.get("utilization") or {}
    if samples.get("failures"):
        failed.append(f"utilization over {samples['runs']:,} runs: {', '.join(samples['failures'])}")
    engines = report.get("engines") or {}
    for build in engines.get("builds", []):
        if build.get("returncode", 1) != 0 or build.get("parity", {}).get("differences", 0) != 0:
            failed.append(f"engines: {build['engine']} over {build['dataset']}")
    for size in engines.get("spark_sizes", []):
        for build in (size.get("duckdb"), size.get("spark")):
            if not build or build.get("returncode", 1) != 0 or build.get("parity", {}).get("differences", 0) != 0:
                failed.append(f"engines: {(build or {}).get('engine', 'spark')} over {size['runs']:,} runs")
    return failed


def run(args: argparse.Namespace, argv: list[str]) -> int:
    """Run every step args asks for; returns the exit status (1 when a step failed or a check
    disagreed; a missed target is no failure)."""
    work = args.out_dir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    meter = Meter(work / "_meter")
    settings = LogSettings(seed=args.seed, shard_runs=args.shard_runs, fault_rate=args.fault_rate)
    report: dict = {
        "command": "scripts/bench.py " + " ".join(shlex.quote(a) for a in argv),
        "machine": machine(),
        "memory_method": meter.method,
        "config": {
            "sizes": args.size_list,
            "seed": args.seed,
            "shard_runs": args.shard_runs,
            "fault_rate": args.fault_rate,
            "sharded_from_runs": SHARDED_FROM,
            "skipped_steps": sorted(args.skip),
            "tolerance_seconds": TOLERANCE_S,
            "repeats": args.repeats,
            "with_tests": args.with_tests,
            "as_of": BENCH_AS_OF,
            "spark_runs": args.spark_runs_list,
            "utilization_runs": args.with_utilization,
            "layout_runs": args.layout_runs,
        },
        "sizes": [],
    }

    def save() -> None:
        report["targets"] = targets(report)
        write_results(report, work)

    install = fixed_cost.installation(work / "installation")
    runs = fixed_cost.FIXED_COST_RUNS
    if "fixed_cost" not in args.skip:
        print(
            f"[fixed cost] runlens build over {runs} runs into a fresh database, {args.repeats} times "
            f"(plain dbt build too: {'plain_dbt' not in args.skip}); the plans recorded",
            flush=True,
        )
        report["fixed_cost"] = fixed_cost.measure(
            meter, work / "fixed_cost", install, settings, args.repeats, args.keep, "plain_dbt" not in args.skip
        )
        save()
    elif (
        args.size_list
        or args.layout_runs
        or args.with_utilization
        or args.with_traces
        or ("watch" not in args.skip and args.watch_list)
    ):
        print(f"[plans] recording the plans over {runs} runs (the fixed cost step is skipped)", flush=True)
        report["plans"] = fixed_cost.record_plans(meter, work / "plans", install, settings)
        save()
    if "watch" not in args.skip:
        report["watch_refreshes"] = []
        for runs in args.watch_list:
            print(
                f"[watch] a refresh inside runlens watch over {runs:,} runs after one new file, {args.repeats} times",
                flush=True,
            )
            folder = work / f"watch_{runs}"
            figures = watch_refresh.measure(meter, folder, install, settings, args.repeats, args.keep, runs)
            report["watch_refreshes"].append(figures)
            save()
    fixed_seconds = (report.get("fixed_cost") or {}).get("seconds")
    if "make_sample" not in args.skip:
        print(f"[make sample] from an empty database, {args.repeats} times", flush=True)
        report["make_sample"] = make_sample.measure(meter, work / "make_sample", args.repeats, keep=args.keep)
        save()
    for runs in args.size_list:
        entry = one_size.measure(runs, meter, work, install, settings, args.skip, fixed_seconds, args.keep)
        report["sizes"].append(entry)
        save()
    if args.layout_runs:
        report["layouts"] = layouts.measure(
            args.layout_runs, meter, work, install, settings, args.skip, fixed_seconds, args.keep
        )
        save()
    if args.with_traces:
        report["traces"] = trace_builds.measure(
            meter, work / "traces", install, args.trace_runs, args.trace_events, args.keep
        )
    if args.with_utilization:
        report["utilization"] = utilization.measure(args.with_utilization, meter, work, install, args.seed, args.keep)
        save()
    if args.engine_list or args.spark_runs_list:
        report["engines"] = other_engines.measure(
            meter, work / "engines", args.engine_list, args.engine_runs, settings, args.keep, args.spark_runs_list
        )
        save()
    if args.with_tests:
        print("[tests] pytest on a fresh clone of HEAD", flush=True)
        report["test_suite"] = fresh_clone_tests.measure(meter, work / "clone", keep=args.keep)
    if not args.keep:
        remove(install.project.parent)
    report["targets"] = targets(report)
    outputs = [work] if args.no_docs else [work, REPO / "docs"]
    for folder in outputs:
        write_results(report, folder)
    print(summary(report))
    print("wrote " + ", ".join(str(folder / "benchmarks.md") for folder in outputs))
    failed = failures_of(report)
    if failed:
        print("bench: failed steps or disagreeing figures: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


def rerender(benchmarks_json: Path, out_dir: Path, engines_status: str | None = None) -> None:
    """Write benchmarks.md (and .json) again from a saved run, optionally saying why the engines
    step has no figures."""
    report = json.loads(benchmarks_json.read_text())
    if engines_status:
        report["engines_status"] = engines_status
    write_results(report, out_dir)
