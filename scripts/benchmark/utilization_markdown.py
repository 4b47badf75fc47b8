"""docs/benchmarks.md's section of the utilization step (--with-utilization): the builds with and
without samples, the floor and its check against the marts, the refreshes, the derived figures.
Nothing is computed here but the formatting."""

from __future__ import annotations

from scripts.benchmark.formatting import fmt
from scripts.benchmark.measure import seconds_of


def _failed(figures: dict) -> str:
    return f"FAILED (exit {figures['returncode']})"


def _build(figures: dict | None) -> str:
    if not figures:
        return "not run"
    if figures.get("returncode", 0) != 0:
        return _failed(figures)
    replayed = figures.get("replayed") or []
    ran = "plan replayed" if replayed and all(replayed) else "dbt ran"
    text = f"{fmt(figures['seconds'], 2)} s, peak {fmt(figures.get('peak_rss_mb'), 0)} MB; ran: {ran}"
    phases = figures.get("phases") or {}
    if phases:
        text += "; phases: " + ", ".join(f"{name} {fmt(seconds, 2)} s" for name, seconds in phases.items())
    top = ((figures.get("where_time_goes") or {}).get("top_models") or [])[:4]
    if top:
        text += "; slowest models: " + ", ".join(f"{n['name']} {fmt(n['seconds'], 2)} s" for n in top)
    return text


def check_text(figures: dict | None) -> str:
    if not figures:
        return "not run"
    if figures.get("returncode", 0) != 0:
        return _failed(figures)
    check = figures["check"]
    counts = (
        f"{fmt(check['intervals_compared'])} intervals, {fmt(check['means_compared'])} means, largest difference "
        f"{fmt(check.get('max_abs_difference_pct'), 9)} percentage points"
    )
    if check["ok"]:
        return f"agree to {check['tolerance_pct']:g} ({counts})"
    return (
        f"DISAGREE: {check['mean_mismatches']} means differ, {check['missing_in_floor']} intervals missing in the "
        f"floor, {check['missing_in_marts']} missing in the marts ({counts}); first: {check.get('examples')}"
    )


def _floor(figures: dict | None) -> str:
    if not figures or figures.get("returncode", 0) != 0:
        return _build(figures) if figures else "not run"
    return (
        f"{fmt(seconds_of(figures), 2)} s query ({fmt(figures.get('process_seconds'), 2)} s process), "
        f"peak {fmt(figures.get('peak_rss_mb'), 0)} MB"
    )


def section(report: dict) -> list[str]:
    entry = report.get("utilization")
    if not entry:
        return []
    generated = entry.get("generate") or {}
    figures = entry.get("figures") or {}
    grown = (entry.get("refresh_with_samples") or {}).get("lines_appended")
    grown_without = (entry.get("refresh_without_samples") or {}).get("lines_appended")
    rows = [
        ("logs", f"{fmt(entry['runs'])} runs, one file per run; {fmt(generated.get('lines_with_samples'))} lines "
                 f"with samples ({fmt(generated.get('sample_lines'))} samples, {fmt(generated.get('gpu_samples'))} "
                 f"of GPUs; {fmt((generated.get('bytes_with_samples') or 0) / 1e6)} MB), "
                 f"{fmt((generated.get('bytes_without_samples') or 0) / 1e3)} kB without"),
        ("generate both folders", f"{fmt(generated.get('seconds'), 2)} s"),
        ("**`runlens build` with samples** (fresh database)", _build(entry.get("build_with_samples"))),
        ("**`runlens build` without samples** (fresh database)", _build(entry.get("build_without_samples"))),
        ("samples' added build time (with - without)", f"{fmt(figures.get('added_seconds'), 2)} s"),
        ("one run's share of it (added time / runs)", f"{fmt(figures.get('run_share_seconds'), 4)} s"),
        ("**utilization floor**: one DuckDB query over the samples", _floor(entry.get("floor"))),
        ("ratio: added build time / floor", fmt(figures.get("added_over_floor"), 2)),
        ("floor's interval means = fct_run_interval_utilization's", check_text(entry.get("floor"))),
        (f"refresh with samples: one run's file grew ({fmt(grown)} lines)", _build(entry.get("refresh_with_samples"))),
        (f"refresh without samples: the same run grew ({fmt(grown_without)} lines)",
         _build(entry.get("refresh_without_samples"))),
        ("refresh budget (refresh without + one run's share)", f"{fmt(figures.get('refresh_budget_seconds'), 2)} s"),
        ("ratio: refresh with samples / budget", fmt(figures.get("refresh_over_budget"), 2)),
        ("refreshed marts = floor over the grown logs", check_text(entry.get("floor_after_refresh"))),
    ]  # fmt: skip
    lines = [
        "## Utilization samples (`--with-utilization`)",
        "",
        "Runs of 6 hours with a W&B-like sample every 15 s (+- 0.5 s) of each of 8 GPUs and of the host "
        "(scripts/benchmark/utilization_logs.py), built by `runlens build` in a fresh process into a fresh "
        "database (the recorded plan replayed), and the same runs without their samples; the floor is one "
        "hand-written DuckDB query over the files with samples that gives every interval's time-weighted mean "
        "GPU utilization (scripts/benchmark/utilization_floor.py). The refreshes: run 0's file was written "
        "without its last hour (as a live run's file is) and grows by it: its samples, epoch_end and run_end "
        "(without samples, those two markers). One run's share is the samples' added build time divided by the "
        "runs.",
        "",
        "| | |",
        "|---|---|",
        *[f"| {name} | {value} |" for name, value in rows],
    ]
    if entry.get("failures"):
        lines += ["", f"Failed steps or checks: {', '.join(entry['failures'])}."]
    return [*lines, ""]
