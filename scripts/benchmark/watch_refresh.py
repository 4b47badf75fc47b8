"""A refresh inside `runlens watch`: the command runs over generated runs (3, and 200,000 in the
sharded layout, by default: bench.py --watch-runs), with the bench's installation (the project
copy and cache folder the fixed cost step recorded dbt's plans in: fixed_cost.py). Its first
refresh builds everything into a fresh database (not counted); then one new run's file is written
and refreshed, not counted either (the first refresh of an already-built database runs dbt and
records its plan when the cache has none yet); then, --repeats times, one new run's file is
written and the time until the watch's refresh line appears is measured, together with the
refresh's own figure from that line (from noticing the change to the pages rendered: the watch
prints the line after rendering, runlens/refresh/watch.py Watcher.refresh). The watch looks at the folder
every 0.1 s and waits for no settling, so the figures are the steady-state refresh's own: the
recorded plan replayed in a process that started once (the plans the cache folder gains during the
first refresh, the warm-up and the repeats are counted: none during the repeats means dbt never
ran in them)."""

from __future__ import annotations

import os
import re
import select
import signal
import statistics
import subprocess
import time
from pathlib import Path

from scripts import generate_sample
from scripts.benchmark.datasets import LogSettings, layout_for
from scripts.benchmark.fixed_cost import Installation, generated
from scripts.benchmark.measure import Meter
from scripts.benchmark.scratch import remove
from tests.support.pipeline import RUNLENS

REFRESHED = re.compile(r"refreshed in (\d+(?:\.\d+)?) s")
SPLIT = re.compile(r"\(build (\d+(?:\.\d+)?) s, pages (\d+(?:\.\d+)?) s\)")  # the line's split, when it gives one


def line_figures(line: str) -> dict:
    """The refresh line's seconds, and its build and pages seconds when it gives them."""
    figures = {"refresh_seconds": float(REFRESHED.search(line).group(1))}
    if split := SPLIT.search(line):
        figures["build_seconds"], figures["pages_seconds"] = float(split.group(1)), float(split.group(2))
    return figures


LINE_TIMEOUT_SECONDS = 600


def next_refresh(process: subprocess.Popen) -> str:
    """The watch's next refresh line (other lines skipped); raises TimeoutError."""
    deadline = time.monotonic() + LINE_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("runlens watch ended: " + process.stderr.read()[-3000:])
        if REFRESHED.search(line):
            return line
    raise TimeoutError(f"no refresh line from runlens watch in {LINE_TIMEOUT_SECONDS} s")


def measure(
    meter: Meter,
    folder: Path,
    install: Installation,
    settings: LogSettings,
    repeats: int,
    keep: bool = False,
    runs: int = 3,
) -> dict:
    """Over `runs` generated runs, the refresh after one new file, `repeats` times after one that is
    not counted (median wall s from writing the file to the refresh line, and the refresh's own
    seconds)."""
    result: dict = {"runs": runs, "layout": layout_for(runs), "repeats": repeats, "refreshes": []}
    raw = generated(meter, folder, runs, settings, result, layout_for(runs))
    if raw is None:
        return result
    command = [str(RUNLENS), "watch", "--logs", str(raw), "--db", str(folder / "watch.duckdb")]
    command += ["--out", str(folder / "pages"), "--interval", "0.1", "--settle", "0"]
    process = subprocess.Popen(
        command,
        env=install.environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C stops it, also when the bench runs where SIGINT is ignored (in a shell's background)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def new_file(index: int) -> tuple[float, str]:
        """Write run number index's file; the wall seconds until the refresh line, and the line."""
        written = time.perf_counter()
        generate_sample.write_scale(
            raw, settings.seed, index, 1, "per-run", settings.shard_runs, settings.fault_rate, settings.shape
        )
        line = next_refresh(process)
        return round(time.perf_counter() - written, 3), line

    plans = {"before": install.plans()}
    result["plans_recorded"] = {}  # plans dbt recorded (it ran) during the first refresh, the warm-up, the repeats
    try:
        started = time.perf_counter()
        next_refresh(process)
        result["first_refresh_seconds"] = round(time.perf_counter() - started, 3)
        plans["first_refresh"] = install.plans()
        seconds, line = new_file(runs)
        result["warm_up"] = {"seconds": seconds, **line_figures(line)}
        plans["warm_up"] = install.plans()
        for repeat in range(repeats):
            seconds, line = new_file(runs + 1 + repeat)
            result["refreshes"].append({"seconds": seconds, **line_figures(line), "line": line.strip()})
        plans["repeats"] = install.plans()
        steps = list(plans)
        result["plans_recorded"] = {steps[i]: plans[steps[i]] - plans[steps[i - 1]] for i in range(1, len(steps))}
    except (TimeoutError, RuntimeError) as error:
        result["returncode"] = 1
        result["error"] = str(error)
        return result
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
    walls = [refresh["seconds"] for refresh in result["refreshes"]]
    result["returncode"] = 0
    result["seconds"] = round(statistics.median(walls), 3)
    result["refresh_seconds"] = round(statistics.median(r["refresh_seconds"] for r in result["refreshes"]), 3)
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if not keep:
        remove(raw, folder / "pages", *folder.glob("watch.duckdb*"))
    return result
