"""Build the real runlens dbt project over a folder of logs, for tests.

The project is copied to a scratch folder so a test can give it its own DuckDB settings and
database without touching the working tree; then the real `dbt build` runs there, in-process in
one of the session's dbt workers (tests/support/dbt_workers.py, runlens.refresh.dbt_session): a worker parses a
copy once and hands the parsed project to every later build in it, so a build pays for its nodes
only. A folder of logs carries its own collections file (runlens_collections.csv), as the sample
and the fixtures do. `ProjectCopies` keeps the copies of a session for that reuse: one per kind
(DuckDB settings), and another only while the first is busy with a build running at the same
time. The database and the raw folder are no part of what dbt parses (runlens/refresh/database.py), so
every database and folder shares a copy's parse.

Spark's builds run the dbt command line in a process of their own (`dbt_process`), so that its
JVM ends with the build; so do the tests that kill or watch a build from outside.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from runlens.raw_logs.as_of import SAMPLE_AS_OF
from tests.support.dbt_workers import Job, WorkerPool

REPO = Path(__file__).resolve().parents[2]
PROJECT_PARTS = (
    "dbt_project.yml",
    "profiles.yml",
    "models",
    "macros",
    "seeds",
    "data-tests",
)
DBT = Path(sys.executable).with_name("dbt")
# the installed command (the venv's, from this checkout: make installs it editable)
RUNLENS = Path(sys.executable).with_name("runlens")
DATABASE = "runlens.duckdb"
# A refresh as `runlens build` runs it (runlens/refresh/build.py REFRESH): the models and every data test.
# dbt's unit tests check the SQL against fixed inputs, the same whatever the logs: they run where
# each engine's build is checked whole (tests/engines/test_engine_parity.py, UNIT_TESTS), not in every
# build of logs (dbt_project.yml enables them only with the var unit_tests).
REFRESH = ("build", "--exclude-resource-type", "unit_test")
UNIT_TESTS = ("--vars", "{unit_tests: true}")
WORKERS = WorkerPool(int(os.environ.get("RUNLENS_TEST_BUILDS", "2")))
# the folders of logs most builds read: the hand-worked fixture and the bundled sample
FAULTY = REPO / "tests" / "fixtures" / "faulty"
SAMPLE = REPO / "data" / "sample"


def copy_project(destination: Path) -> Path:
    """Copy the dbt project to destination."""
    for part in PROJECT_PARTS:
        source = REPO / part
        target = destination / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def copy_database(database: Path, folder: Path) -> Path:
    """A copy of a built database (and its write-ahead log, if any) in folder, named DATABASE."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in (database, database.with_name(database.name + ".wal")):
        if source.exists():
            shutil.copy2(source, folder / source.name.replace(database.name, DATABASE))
    return folder / DATABASE


def limit_resources(project: Path, **settings: str) -> None:
    """DuckDB settings (limits) for this project copy only (its copy of profiles.yml)."""
    path = project / "profiles.yml"
    profiles = yaml.safe_load(path.read_text())
    for name, profile in profiles.items():
        if name != "config":
            for output in profile["outputs"].values():
                output.setdefault("settings", {}).update(settings)
    path.write_text(yaml.safe_dump(profiles))


@dataclass(frozen=True)
class Project:
    """A kind of project copy: the DuckDB settings written into its profiles.yml. Builds given a
    kind run in a copy of that kind."""

    settings: tuple[tuple[str, str], ...] = ()

    @classmethod
    def limited(cls, **settings: str) -> Project:
        return cls(tuple(sorted(settings.items())))


# the kind of project copy most builds run in (no settings of its own; a raw folder carries its own collections file)
PROJECT = Project()


class ProjectCopies:
    """The session's project copies, reused from build to build so dbt reuses its parse of each.

    A copy is busy while a dbt command runs in it (two dbt processes in one project would write the
    same target/ folder); a build that finds every copy of its kind busy gets a new copy."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.idle: dict[Project, list[Path]] = {}
        self.made = 0

    @contextmanager
    def checkout(self, kind: Project) -> Iterator[Path]:
        with self.lock:
            idle = self.idle.setdefault(kind, [])
            project = idle.pop() if idle else None
            if project is None:
                self.made += 1
                project = self.root / f"project{self.made}"
                fresh = True
            else:
                fresh = False
        if fresh:
            copy_project(project)
            if kind.settings:
                limit_resources(project, **dict(kind.settings))
        try:
            yield project
        finally:
            with self.lock:
                self.idle[kind].append(project)


COPIES: ProjectCopies | None = None  # the session's copies (tests/conftest.py sets them up)


def project_copies() -> ProjectCopies:
    assert COPIES is not None, "no project copies: tests/conftest.py sets pipeline.COPIES for the session"
    return COPIES


def environment(raw_dir: Path, database: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a test build runs with."""
    return {
        **os.environ,
        "RUNLENS_RAW_DIR": str(raw_dir),
        "RUNLENS_DB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        # every test build judges live runs as of the sample's as-of time (raw_logs/as_of.py): two
        # builds of the same logs then agree on the now-dependent marts, and their figures are fixed
        "RUNLENS_AS_OF": SAMPLE_AS_OF,
        **(env or {}),
    }


def dbt_process(project: Path, raw_dir: Path, database: Path, *args: str, env: dict[str, str] | None = None) -> dict:
    """subprocess arguments that run the dbt command line in project (a copy's folder) over raw_dir
    into database (its folder made if missing)."""
    database.parent.mkdir(parents=True, exist_ok=True)
    environment_ = environment(raw_dir, database, {"DBT_PROFILES_DIR": str(project), **(env or {})})
    command = [str(DBT), *args, "--project-dir", str(project)]
    if in_own_process(args):
        command = [*spark_build_command(args), "--project-dir", str(project)]
    return {"args": command, "cwd": database.parent, "env": environment_}


def spark_build_command(args: tuple[str, ...]) -> list[str]:
    """A Spark `dbt build` as it runs: scripts/engine_build.py reads the raw folder with Spark's
    reader, then runs dbt's build in the same process and Spark session (unit tests included when
    the args turn them on)."""
    words = list(args)
    assert words[0] == "build", f"a Spark build, not {words[0]}"
    at = words.index("--target") if "--target" in words else words.index("-t")
    del words[at : at + 2]
    unit_tests = ["--with-unit-tests"] if "unit_tests: true" in " ".join(words) else []
    return [sys.executable, str(REPO / "scripts" / "engine_build.py"), "spark", *unit_tests, *words[1:]]


def in_own_process(args: tuple[str, ...]) -> bool:
    """Spark's builds: dbt-spark's session starts a JVM that lives as long as its process."""
    return any(arg == "spark" and args[index - 1] in ("--target", "-t") for index, arg in enumerate(args) if index)


def run_dbt(
    project: Path | Project,
    raw_dir: Path,
    database: Path,
    *args: str,
    env: dict[str, str] | None = None,
    planned: bool = False,
) -> subprocess.CompletedProcess:
    """Run dbt in project (a copy's folder, or a kind of copy: one of the session's) over raw_dir
    into database (DuckDB; `env` may choose another target's settings); returns what a finished
    dbt process would: its exit status and dbt's log lines (info and above) as stdout. planned: a
    DuckDB build runs as `runlens build` runs it, dbt's recorded plan for the same situation when
    there is one (tests/support/dbt_workers.py); dbt's own log lines are then only its errors."""
    if isinstance(project, Project):
        with project_copies().checkout(project) as copy:
            return run_dbt(copy, raw_dir, database, *args, env=env, planned=planned)
    if in_own_process(args):
        return subprocess.run(
            **dbt_process(project, raw_dir, database, *args, env=env), capture_output=True, text=True, check=False
        )
    database.parent.mkdir(parents=True, exist_ok=True)
    planned = planned and args[:1] == ("build",) and not any(arg in ("--target", "-t") for arg in args)
    done = WORKERS.run(Job(str(project), tuple(args), environment(raw_dir, database, env), planned))
    return subprocess.CompletedProcess(["dbt", *args], done.returncode, done.output, "")


def build(
    project: Path | Project, raw_dir: Path, database: Path, *args: str, planned: bool = True
) -> subprocess.CompletedProcess:
    """A refresh that must succeed (the models and data tests): fails the test with dbt's output
    otherwise. As `runlens build` runs it (dbt's recorded plan when there is one), whose marts are
    those of a plain `dbt build` (tests/pipeline/test_plans.py); planned=False: dbt's own build."""
    result = run_dbt(project, raw_dir, database, *REFRESH, *args, planned=planned)
    if result.returncode != 0:
        raise AssertionError(f"dbt build failed over {raw_dir}:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return result


def rounded(rows: list[tuple]) -> list[tuple]:
    """Floats to 12 significant digits: sums over rows stored in another physical order (an
    incremental build against a full one) may differ in the last bit, which is no difference in
    any figure."""
    return [tuple(float(f"{value:.12g}") if isinstance(value, float) else value for value in row) for row in rows]


def runlens_command(*args, env: dict | None = None, cwd: Path | None = None, **options) -> subprocess.CompletedProcess:
    """Run the `runlens` command as a user does, in a process of its own (output captured)."""
    return subprocess.run(
        [str(RUNLENS), *map(str, args)],
        env={**os.environ, **(env or {})},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        **options,
    )
