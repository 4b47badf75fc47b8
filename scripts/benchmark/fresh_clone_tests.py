"""The pytest of `make test` on a fresh clone (--with-tests): the repository's committed HEAD cloned
into the scratch folder, and pytest run there with the installed venv (the clone's tests import the
clone's code) and the environment CI gives it: .ci/run's variables and the two the Makefile exports.
PostgreSQL is the bench user's to start, as for --engines (README "Benchmarks"). The figures are the
wall time, pytest's summary line and counts, and its exit status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from scripts.benchmark.measure import Meter
from scripts.benchmark.scratch import remove
from tests.support.pipeline import REPO

PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
OUTCOMES = ("passed", "failed", "errors", "error", "skipped", "xfailed", "xpassed", "deselected")
OUTCOME_COUNT = re.compile(r"(\d+) (" + "|".join(OUTCOMES) + r")\b")


def ci_environment(clone: Path) -> dict[str, str]:
    """What .ci/run exports before `make test`, and what the Makefile exports to pytest; and the
    clone first on the import path, so that the installed venv's `runlens` command, which the tests
    run, loads the clone's code (the clone is then the checkout it runs in), not the repository's."""
    return {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(clone), os.environ.get("PYTHONPATH")])),
        "RUNLENS_PG_HOST": "127.0.0.1",
        "RUNLENS_PG_PORT": os.environ.get("RUNLENS_PG_PORT", "54329"),
        "RUNLENS_PG_USER": "runlens",
        "RUNLENS_PG_DATABASE": "runlens",
        "SPARK_LOCAL_IP": "127.0.0.1",
        "TZ": "UTC",
        "RUNLENS_REQUIRE_ENGINES": "1",
        "RUNLENS_REQUIRE_FRAMEWORKS": "1",
        "RUNLENS_REQUIRE_IMPORTERS": "1",
        "DBT_PROFILES_DIR": str(clone),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }


def summary_of(output: str) -> tuple[str | None, dict[str, int]]:
    """pytest's closing summary line ("3 passed, 1 skipped in 2.0s") and its counts."""
    for line in reversed(output.splitlines()):
        counts = OUTCOME_COUNT.findall(line)
        if counts and " in " in line:
            totals: dict[str, int] = {}
            for number, outcome in counts:
                outcome = "errors" if outcome == "error" else outcome
                totals[outcome] = totals.get(outcome, 0) + int(number)
            return line.strip(" ="), totals
    return None, {}


def installed_python() -> Path:
    """The repository's installed venv; the running Python where there is none (a clone's own tests)."""
    python = REPO / ".venv" / "bin" / "python"
    return python if python.exists() else Path(sys.executable)


def measure(meter: Meter, folder: Path, pytest_args: tuple[str, ...] = (), keep: bool = False) -> dict:
    """Clone REPO's HEAD to `folder` and time pytest there (pytest_args: to run part of the suite)."""
    remove(folder)
    clone = subprocess.run(
        ["git", "clone", "--quiet", str(REPO), str(folder)], capture_output=True, text=True, check=False
    )
    if clone.returncode != 0:
        return {"returncode": clone.returncode, "error": f"git clone failed: {clone.stderr.strip()}"}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, check=False)
    python = installed_python()
    figures, finished = meter.run_process(
        [str(python), *PYTEST, *pytest_args], cwd=folder, env={**os.environ, **ci_environment(folder)}
    )
    summary, counts = summary_of(finished.stdout)
    figures.update({"commit": head.stdout.strip(), "summary": summary, "counts": counts, "python": str(python)})
    if not keep:
        remove(folder)
    return figures
