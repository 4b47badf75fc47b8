"""A refresh inside `runlens watch`: the command runs over generated runs (3, and 200,000 in the
sharded layout, by default: bench.py --watch-runs; its first refresh parses the project and
builds everything, not counted); then, --repeats times, one new run's file
is written and the time until the watch's refresh line appears is measured, together with the
refresh's own figure from that line (from noticing the change to the pages rendered). The watch
looks at the folder every 0.1 s and waits for no settling, so the figures are the refresh's own:
dbt's nodes in a process that parsed the project once."""

from __future__ import annotations

import os
import re
import select
import signal
import statistics
import subprocess
import time
from pathlib import Path

import generate_sample
from pipeline import RUNLENS

from benchmark.datasets import LogSettings, layout_for
from benchmark.fixed_cost import command_environment, generated
from benchmark.measure import Meter
from benchmark.scratch import remove

REFRESHED = re.compile(r"refreshed in (\d+(?:\.\d+)?) s")
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


def measure(meter: Meter, folder: Path, settings: LogSettings, repeats: int, keep: bool = False, runs: int = 3) -> dict:
    """Over `runs` generated runs, the refresh after one new file, `repeats` times (median wall s
    from writing the file to the refresh line, and the refresh's own seconds)."""
    result: dict = {"runs": runs, "layout": layout_for(runs), "repeats": repeats, "refreshes": []}
    raw, project = generated(meter, folder, runs, settings, result, layout_for(runs))
    if project is None:
        return result
    command = [str(RUNLENS), "watch", "--logs", str(raw), "--db", str(folder / "watch.duckdb")]
    command += ["--out", str(folder / "pages"), "--interval", "0.1", "--settle", "0"]
    process = subprocess.Popen(
        command,
        env=command_environment(folder, project),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C stops it, also when the bench runs where SIGINT is ignored (in a shell's background)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        started = time.perf_counter()
        next_refresh(process)
        result["first_refresh_seconds"] = round(time.perf_counter() - started, 3)
        for repeat in range(repeats):
            written = time.perf_counter()
            generate_sample.write_scale(
                raw, settings.seed, runs + repeat, 1, "per-run", settings.shard_runs, settings.fault_rate
            )
            line = next_refresh(process)
            seconds = round(time.perf_counter() - written, 3)
            result["refreshes"].append(
                {"seconds": seconds, "refresh_seconds": float(REFRESHED.search(line).group(1)), "line": line.strip()}
            )
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
        remove(raw, project, folder / "pages", *folder.glob("watch.duckdb*"))
    return result
