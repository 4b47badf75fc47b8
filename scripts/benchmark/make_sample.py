"""`make sample` once installed: from an empty database to rendered reports. Run in the repository
itself with RUNLENS_DB at a path in the bench's scratch folder, the database removed before each run
(so every run starts from an empty database), over the bundled sample, the reports going to the
repository's reports/ as usual; repeated, the median wall time is the figure. `make sample` runs
`runlens build` and `runlens report`, each a fresh process; dbt parses partially from the saved
parse in runlens' cache folder (the database is no part of what dbt parses: runlens/refresh/database.py).
The venv must already be installed, so make does not reinstall: `make -q .venv/.installed-runtime`
says whether its stamp is up to date, and the figures say so when it is not."""

from __future__ import annotations

import os
import statistics
import subprocess
from pathlib import Path

from scripts.benchmark.measure import Meter
from scripts.benchmark.scratch import fresh_folder, remove
from tests.support.pipeline import REPO

RUNTIME_STAMP = ".venv/.installed-runtime"


def venv_up_to_date(repo: Path) -> bool:
    """Whether make would leave the installed runtime alone (its stamp newer than its requirements)."""
    check = subprocess.run(["make", "-q", RUNTIME_STAMP], cwd=repo, capture_output=True, check=False)
    return check.returncode == 0


def measure(meter: Meter, folder: Path, repeats: int, repo: Path = REPO, keep: bool = False) -> dict:
    """Time `make sample` in `repo` `repeats` times, each into an empty database under `folder`."""
    fresh_folder(folder)
    result: dict = {"repeats": repeats, "venv_up_to_date": venv_up_to_date(repo), "runs": []}
    environment = {key: value for key, value in os.environ.items() if key != "RUNLENS_RAW_DIR"}
    database = folder / "sample.duckdb"
    for _ in range(repeats):
        remove(*folder.glob(f"{database.name}*"))
        figures = meter.run(["make", "sample"], cwd=repo, env={**environment, "RUNLENS_DB": str(database)})
        figures["database_created"] = database.exists()
        result["runs"].append(figures)
        if figures["returncode"] != 0:
            result["returncode"] = figures["returncode"]
            return result
    if not keep:
        remove(*folder.glob(f"{database.name}*"))
    walls = [figures["seconds"] for figures in result["runs"]]
    result["returncode"] = 0
    result["seconds"] = round(statistics.median(walls), 3)
    result["peak_rss_mb"] = max(figures["peak_rss_mb"] or 0 for figures in result["runs"]) or None
    return result
