"""Measuring a process: its wall time here, its peak memory from /usr/bin/time -v (or getrusage);
the dbt command line run in a copied project (tests/support/pipeline.py's dbt_process); and where the time
of one build went, from dbt's target/run_results.json or from `runlens build --timings` (the same
shape: "elapsed_time" and "results", plus whether the build replayed dbt's recorded plan and the
plan's phases)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from tests.support import pipeline
from tests.support.pipeline import dbt_process

TIME_BIN = Path("/usr/bin/time")

RUSAGE_FALLBACK = """\
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(f"Maximum resident set size (kbytes): {kb}\\n")
sys.exit(code)
"""


class Meter:
    """Runs commands under /usr/bin/time -v (when present, else a getrusage wrapper) and reads back
    the peak resident set size. For dbt, tests/support/pipeline.py's dbt_process is used unchanged: its dbt
    executable (pipeline.DBT) is pointed at a small wrapper script that execs the measured dbt."""

    def __init__(self, scratch: Path) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        self.rusage_file = scratch / "rusage.txt"
        if TIME_BIN.exists():
            self.method = "/usr/bin/time -v (max RSS of the measured process)"
            self.prefix = [str(TIME_BIN), "-v", "-o"]
        else:
            fallback = scratch / "rusage_wrapper.py"
            fallback.write_text(RUSAGE_FALLBACK)
            self.method = "getrusage(RUSAGE_CHILDREN).ru_maxrss in a wrapper process"
            self.prefix = [sys.executable, str(fallback)]
        self.real_dbt = pipeline.DBT
        self.dbt_wrapper = scratch / "dbt-measured"
        measured = " ".join(shlex.quote(part) for part in self.prefix)
        self.dbt_wrapper.write_text(
            f'#!/bin/sh\nexec {measured} "$RUNLENS_BENCH_RUSAGE" {shlex.quote(str(self.real_dbt))} "$@"\n'
        )
        self.dbt_wrapper.chmod(0o755)

    def _peak_mb(self) -> float | None:
        try:
            text = self.rusage_file.read_text()
        except OSError:
            return None
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        return int(match.group(1)) * 1024 / 1e6 if match else None

    def run_process(self, argv: list[str], **kwargs) -> tuple[dict, subprocess.CompletedProcess]:
        """Run argv measured; returns its figures and the finished process (output captured)."""
        self.rusage_file.unlink(missing_ok=True)
        started = time.perf_counter()
        result = subprocess.run(
            [*self.prefix, str(self.rusage_file), *argv], capture_output=True, text=True, check=False, **kwargs
        )
        seconds = time.perf_counter() - started
        return self._figures(result, seconds), result

    def run(self, argv: list[str], **kwargs) -> dict:
        """Run argv measured: wall seconds, peak RSS in MB, exit status (and output tails on failure)."""
        return self.run_process(argv, **kwargs)[0]

    def dbt(self, project: Path, raw_dir: Path, database: Path, *args: str, env: dict | None = None) -> dict:
        """Run the dbt command line measured in a copied project (tests/support/pipeline.py's dbt_process);
        a build or run also gives dbt's own elapsed time from target/run_results.json."""
        self.rusage_file.unlink(missing_ok=True)
        os.environ["RUNLENS_BENCH_RUSAGE"] = str(self.rusage_file)
        pipeline.DBT = self.dbt_wrapper
        try:
            started = time.perf_counter()
            result = subprocess.run(
                **dbt_process(project, raw_dir, database, *args, env=env), capture_output=True, text=True, check=False
            )
            seconds = time.perf_counter() - started
        finally:
            pipeline.DBT = self.real_dbt
            os.environ.pop("RUNLENS_BENCH_RUSAGE", None)
        figures = self._figures(result, seconds)
        results_file = run_results_of(project)
        if args[0] in ("build", "run") and results_file.exists():
            results = json.loads(results_file.read_text())
            figures["dbt_elapsed_seconds"] = results.get("elapsed_time")
            if failed := failed_nodes(results):
                figures["failed_nodes"] = failed
        return figures

    def _figures(self, result: subprocess.CompletedProcess, seconds: float) -> dict:
        figures = {"seconds": round(seconds, 3), "peak_rss_mb": self._peak_mb(), "returncode": result.returncode}
        if result.returncode != 0:
            figures["error"] = (result.stdout[-3000:] + "\n" + result.stderr[-3000:]).strip()
        return figures


def failed_nodes(results: dict) -> dict[str, str]:
    """Each node that failed or erred, with the start of dbt's message for it: the cause, which the
    tail of a long Java stack trace (all that `error` keeps) leaves out."""
    return {
        node["unique_id"]: (node.get("message") or "")[:2000]
        for node in results.get("results", [])
        if node.get("status") in ("error", "fail", "runtime error")
    }


def run_results_of(project: Path) -> Path:
    """Where dbt leaves the results of the last invocation in a project."""
    return project / "target" / "run_results.json"


def where_time_goes(run_results: Path, top: int = 10) -> dict:
    """Execution time by node type and the slowest models and tests of one dbt invocation."""
    data = json.loads(run_results.read_text())
    totals: dict[str, float] = {}
    nodes = []
    for result in data["results"]:
        kind = result["unique_id"].split(".", 1)[0]
        totals[kind] = totals.get(kind, 0.0) + result["execution_time"]
        # model.<project>.<name>; test.<project>.<name>.<hash>
        nodes.append((result["execution_time"], kind, result["unique_id"].split(".")[2]))
    nodes.sort(reverse=True)
    return {
        "dbt_elapsed_seconds": data.get("elapsed_time"),
        "execution_seconds_by_type": {kind: round(value, 3) for kind, value in sorted(totals.items())},
        "node_counts": {kind: sum(1 for n in nodes if n[1] == kind) for kind in sorted(totals)},
        "top_models": [{"name": n[2], "seconds": round(n[0], 3)} for n in nodes if n[1] == "model"][:top],
        "top_tests": [{"name": n[2], "seconds": round(n[0], 3)} for n in nodes if n[1] in ("test", "unit_test")][:5],
    }


def timings_figures(timings: Path) -> dict:
    """What a `runlens build --timings` file says of the build: its elapsed time (dbt's, or the
    replayed plan's: reading, nodes, commit), for each dbt command whether it replayed dbt's recorded
    plan (runlens/refresh/dbt_build.py; [] when nothing ran) and whether it parsed the project, the plan's
    phases (seconds outside its nodes: reading, commit, close) and how many nodes ran."""
    data = json.loads(timings.read_text())
    return {
        "dbt_elapsed_seconds": data.get("elapsed_time"),
        "replayed": data.get("replayed", []),
        "parsed": data.get("parsed", []),
        "phases": data.get("phases", {}),
        "nodes": len(data.get("results", [])),
    }


def seconds_of(figures: dict | None, key: str = "seconds") -> float | None:
    """A step's figure, or None when the step did not run, failed or was not run."""
    if not figures or figures.get("returncode", 0) != 0 or "not_run" in figures:
        return None
    return figures.get(key)
