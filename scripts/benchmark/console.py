"""The summary the bench prints at the end: a line per size, the fixed cost and make sample, then
the targets and their verdicts."""

from __future__ import annotations

from scripts.benchmark.formatting import fmt
from scripts.benchmark.measure import seconds_of

HEADER = ["runs", "lines", "build s", "noop s", "clock s", "floor s", "fair s", "pandas s", "ref.new s",
          "ref.sweep s", "ref.app s", "render s", "peak MB", "replayed", "checks"]  # fmt: skip
# the size's `runlens build`s that should replay a plan
BUILDS = ("build", "refresh_new_runs", "refresh_new_sweep", "refresh_appends")


def _replayed(entry: dict) -> str:
    """How many of the size's builds replayed a recorded plan, of those that ran."""
    ran = [entry[name] for name in BUILDS if entry.get(name) and entry[name].get("returncode", 0) == 0]
    return f"{sum(1 for figures in ran if figures.get('replayed') and all(figures['replayed']))}/{len(ran)}"


def _checks(entry: dict) -> str:
    agree = all(
        (entry.get(name) or {}).get("check", {}).get("ok", name not in entry or "not_run" in entry[name])
        for name in ("floor", "fair_floor", "pandas", "refresh_check")
    )
    return "agree" if agree and not entry.get("failures") else "FAIL: " + ",".join(entry.get("failures", []))


def summary(report: dict) -> str:
    rows = [HEADER]
    for e in [*report["sizes"], *(report.get("layouts") or [])]:
        rows.append(
            [
                fmt(e["runs"]) + (f" ({e['title']})" if e.get("title") else ""),
                fmt(e.get("lines_read")),
                fmt(seconds_of(e.get("build"))),
                fmt(seconds_of(e.get("build_noop"))),
                fmt(seconds_of(e.get("build_clock"))),
                fmt(seconds_of(e.get("floor")), 2),
                fmt(seconds_of(e.get("fair_floor")), 2),
                fmt(seconds_of(e.get("pandas"), "process_seconds"), 2),
                fmt(seconds_of(e.get("refresh_new_runs"))),
                fmt(seconds_of(e.get("refresh_new_sweep"))),
                fmt(seconds_of(e.get("refresh_appends"))),
                fmt(seconds_of(e.get("render_report"))),
                fmt((e.get("build") or {}).get("peak_rss_mb"), 0),
                _replayed(e),
                _checks(e),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    text = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    fixed = report.get("fixed_cost")
    if fixed:
        text.append(
            f"fixed cost ({fixed['runs']} runs, median of {fixed['repeats']}): {fmt(seconds_of(fixed), 2)} s wall, "
            f"start-up {fmt(fixed.get('startup_seconds'), 2)} s, "
            f"elapsed time {fmt(fixed.get('dbt_elapsed_seconds'), 2)} s, "
            f"{fmt(fixed.get('nodes'))} nodes, plan replayed: {fixed.get('replayed')}"
        )
        plain = fixed.get("plain_dbt")
        if plain:
            text.append(
                f"plain dbt build ({plain['runs']} runs, median of {plain['repeats']}): "
                f"{fmt(seconds_of(plain), 2)} s wall, dbt's elapsed time {fmt(plain.get('dbt_elapsed_seconds'), 2)} s"
            )
    for watch in report.get("watch_refreshes") or []:
        text.append(
            f"watch refresh ({watch['runs']:,} runs, one new file, median of {watch['repeats']}): "
            f"{fmt(seconds_of(watch), 2)} s wall"
        )
    sample = report.get("make_sample")
    if sample:
        text.append(f"make sample (median of {sample['repeats']}): {fmt(seconds_of(sample), 2)} s")
    tests = report.get("test_suite")
    if tests:
        text.append(
            f"tests on a fresh clone: {fmt(tests.get('seconds'))} s, exit {tests['returncode']}: {tests.get('summary')}"
        )
    samples = report.get("utilization")
    if samples:
        figures = samples.get("figures") or {}
        check = ((samples.get("floor") or {}).get("check") or {}).get("ok")
        text.append(
            f"utilization ({samples['runs']:,} runs): build with samples "
            f"{fmt(seconds_of(samples.get('build_with_samples')), 1)} s, "
            f"without {fmt(seconds_of(samples.get('build_without_samples')), 1)} s, floor "
            f"{fmt(seconds_of(samples.get('floor')), 2)} s (marts agree: {check}), refresh with "
            f"{fmt(seconds_of(samples.get('refresh_with_samples')), 2)} s, without "
            f"{fmt(seconds_of(samples.get('refresh_without_samples')), 2)} s, one run's share "
            f"{fmt(figures.get('run_share_seconds'), 4)} s"
        )
    for row in report["targets"]:
        text.append(
            f"target: {row['target']} @ {fmt(row['size'])}: {fmt(row['figure'], 2)} ({row['threshold']}) "
            f"-> {row['verdict']}"
        )
    return "\n".join(text)
