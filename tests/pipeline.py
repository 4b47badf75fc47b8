"""Build the real runlens dbt project over a folder of logs, for tests.

The project is copied to a scratch folder so a test can give it its own collections seed and
database without touching the working tree; then the real `dbt build` runs there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECT_PARTS = (
    "dbt_project.yml",
    "profiles.yml",
    "models",
    "macros",
    "seeds",
    "tests/generic",
    "tests/singular",
    "scripts/raw_logs",
)
DBT = Path(sys.executable).with_name("dbt")


def copy_project(destination: Path, collections_csv: Path | None = None) -> Path:
    """Copy the dbt project to destination, optionally with another collections seed."""
    for part in PROJECT_PARTS:
        source = REPO / part
        target = destination / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    if collections_csv is not None:
        shutil.copy2(collections_csv, destination / "seeds" / "collections.csv")
    return destination


def run_dbt(
    project: Path, raw_dir: Path, database: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Run dbt in project over raw_dir into database (DuckDB; `env` may choose another target's
    settings); returns the finished process."""
    env = {
        **os.environ,
        "RUNLENS_RAW_DIR": str(raw_dir),
        "RUNLENS_DB": str(database),
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        **(env or {}),
    }
    return subprocess.run(
        [str(DBT), *args, "--project-dir", str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def build(project: Path, raw_dir: Path, database: Path) -> subprocess.CompletedProcess:
    """`dbt build` that must succeed: fails the test with dbt's output otherwise."""
    result = run_dbt(project, raw_dir, database, "build")
    if result.returncode != 0:
        raise AssertionError(f"dbt build failed over {raw_dir}:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return result


def rounded(rows: list[tuple]) -> list[tuple]:
    """Floats to 12 significant digits: sums over rows stored in another physical order (an
    incremental build against a full one) may differ in the last bit, which is no difference in
    any figure."""
    return [tuple(float(f"{value:.12g}") if isinstance(value, float) else value for value in row) for row in rows]
