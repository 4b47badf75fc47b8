"""dbt in this process, parsed once (dbt's programmatic API, `dbt.cli.main.dbtRunner`).

A DbtSession runs dbt commands, one at a time, on one dbt project, and parses it again only when
what it was parsed from changed. What counts as such a change, where dbt writes, and why a process
holds one session per project: docs/internals.md, "The dbt session".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from runlens.refresh.file_lock import Busy
from runlens.refresh.file_lock import held as held_lock
from runlens.refresh.project import cache_dir, project_dir

PARTIAL_PARSE = "partial_parse.msgpack"
# commands that need no parsed project
WITHOUT_MANIFEST = {"parse", "deps", "clean", "debug", "init"}
# options that change what dbt parses: another value needs another parse
PARSE_OPTIONS = {"--vars", "--target", "-t", "--profile"}
# the folders and files of a project whose change makes the parsed manifest stale
PROJECT_INPUTS = ("dbt_project.yml", "profiles.yml", "models", "macros", "seeds", "data-tests", "analyses", "snapshots")
ENVIRONMENT = {"DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
LEVELS = {"debug": 0, "info": 1, "warn": 2, "error": 3}


@dataclass(frozen=True)
class NodeResult:
    """One node of a finished dbt command, from dbt's own result."""

    unique_id: str
    resource_type: str
    status: str
    message: str | None
    execution_seconds: float


@dataclass
class Invocation:
    """What one dbt command did: success, its nodes, the log lines dbt showed (info and above) and
    the names of every event dbt fired (for example UnableToPartialParse)."""

    args: list[str]
    success: bool = False
    exception: str | None = None  # dbt's exception, as text
    error: BaseException | None = None  # ... and itself (a KeyboardInterrupt is passed on)
    results: list[NodeResult] = field(default_factory=list)
    elapsed_seconds: float | None = None
    lines: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    parsed: str | None = None  # why this command parsed the project first, None when it did not
    replayed: bool = False  # run from dbt's recorded plan (runlens/refresh/dbt_build.py), not by dbt
    phases: dict[str, float] = field(default_factory=dict)  # a plan's seconds outside its nodes (plan_runner)

    @property
    def returncode(self) -> int:
        """As the dbt command line exits: 0 on success, 1 when nodes failed, 2 when dbt itself stopped."""
        if self.success:
            return 0
        return 2 if self.exception is not None else 1

    @property
    def output(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def parse_options(args: Sequence[str]) -> tuple[str, ...]:
    """The options of args that change what dbt parses, with their values."""
    chosen: list[str] = []
    for index, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        if name in PARSE_OPTIONS:
            chosen.append(arg if "=" in arg else f"{arg}={args[index + 1] if index + 1 < len(args) else ''}")
    return tuple(chosen)


def parse_arguments(args: Sequence[str]) -> list[str]:
    """The options of args that change what dbt parses, as dbt takes them."""
    chosen: list[str] = []
    for option in parse_options(args):
        name, _, value = option.partition("=")
        chosen += [name, value]
    return chosen


def project_state(project: Path) -> tuple:
    """Each input file of the project with its size and modification time."""
    state = []
    for name in PROJECT_INPUTS:
        path = project / name
        if path.is_file():
            stat = path.stat()
            state.append((name, stat.st_size, stat.st_mtime_ns))
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for file_name in sorted(files):
                    stat = os.stat(os.path.join(root, file_name))
                    state.append((os.path.join(root, file_name), stat.st_size, stat.st_mtime_ns))
    return tuple(state)


# each file's digest by its path, size and modification time: a process hashes a file again only
# when it changed
_FILE_DIGESTS: dict[tuple, str] = {}


def project_content(project: Path) -> tuple:
    """Each input file of the project by its path inside the project and a digest of its content:
    the same for every copy of the same project, wherever it is (plan.py keys plans by it)."""
    content = []
    for path, size, modified in project_state(project):
        full = project / path
        key = (str(full), size, modified)
        if key not in _FILE_DIGESTS:
            _FILE_DIGESTS[key] = hashlib.sha256(full.read_bytes()).hexdigest()
        content.append((Path(os.path.relpath(full, project)).as_posix(), _FILE_DIGESTS[key]))
    return tuple(content)


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """os.environ with values set (a value of None unsets) for the block, as it was after."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def release_database() -> None:
    """Close dbt-duckdb's process-wide connection, so the database file is closed (checkpointed)
    before the caller moves it; dbt leaves it to the garbage collector."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # another adapter only
        return
    environment_ = DuckDBConnectionManager._ENV
    if environment_ is not None:
        environment_.close()
        DuckDBConnectionManager._ENV = None
    from runlens.refresh.database import close_attached

    close_attached()


class DbtSession:
    """dbt commands on one project, in this process, parsed once."""

    def __init__(
        self,
        project: Path | None = None,
        *,
        work: Path | None = None,
        verbose: bool = False,
        write_json: bool = False,
    ) -> None:
        self.project = (project or project_dir()).resolve()
        self.work = (work or cache_dir(self.project)).resolve()
        self.work.mkdir(parents=True, exist_ok=True)
        self.verbose = verbose
        self.write_json = write_json
        self.log_path = self.work / "logs"
        self.manifest = None
        self.parsed_with: tuple | None = None
        self.target_path: Path | None = None
        self._lock = None
        self._private: Path | None = None

    # -- the folder dbt writes -------------------------------------------------------------

    def _target(self) -> Path:
        """The session's target folder: the project's shared one when no other session holds it,
        else a private copy (with dbt's saved parse state, so it still parses partially)."""
        if self.target_path is not None:
            return self.target_path
        shared = self.work / "target"
        shared.mkdir(parents=True, exist_ok=True)
        locking = ExitStack()
        try:
            locking.enter_context(held_lock(self.work / "target.lock"))
        except Busy:
            self._private = Path(tempfile.mkdtemp(prefix="target-", dir=self.work))
            saved = shared / PARTIAL_PARSE
            if saved.exists():
                shutil.copy2(saved, self._private / PARTIAL_PARSE)
            self.target_path = self._private
        else:
            self._lock = locking
            self.target_path = shared
        return self.target_path

    def close(self) -> None:
        """Let go of the target folder (a private copy is removed, and so is the lock file)."""
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.target_path = None
        self.manifest = None

    def __enter__(self) -> DbtSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running dbt -----------------------------------------------------------------------

    def common_options(self) -> list[str]:
        console = "info" if self.verbose else "none"
        options = [
            "--project-dir",
            str(self.project),
            "--profiles-dir",
            str(self.project),
            "--target-path",
            str(self._target()),
            "--log-path",
            str(self.log_path),
            "--log-level",
            console,
            "--log-level-file",
            "debug" if self.verbose else "info",
            "--no-use-colors-file",
        ]
        if not (self.verbose and sys.stdout.isatty()):
            options.append("--no-use-colors")
        if not self.write_json:
            options.append("--no-write-json")
        return options

    def stale(self, options: tuple) -> str | None:
        """Why the held manifest cannot serve a command with these parse options (None: it can)."""
        if self.manifest is None:
            return "not parsed yet"
        if options != self.parsed_with[0]:
            return "other target, profile or vars"
        if project_state(self.project) != self.parsed_with[1]:
            return "the project's files changed"
        from dbt.constants import DEFAULT_ENV_PLACEHOLDER

        for name, value in self.manifest.env_vars.items():
            if os.environ.get(name, DEFAULT_ENV_PLACEHOLDER) != value:
                return f"{name} changed"
        return None

    def _run(self, args: list[str], manifest, invocation: Invocation):
        from dbt.cli.main import dbtRunner

        def listen(event) -> None:
            info = event.info
            invocation.events.append(info.name)
            if LEVELS.get(info.level, 0) >= LEVELS["info"] and info.msg:
                invocation.lines.append(info.msg)
                if info.level == "error":
                    invocation.errors.append(info.msg)

        runner = dbtRunner(manifest=manifest, callbacks=[listen])
        words = next((index for index, arg in enumerate(args) if arg.startswith("-")), len(args))
        try:  # the command's words (`docs generate`), the session's options, then the caller's, which win
            return runner.invoke([*args[:words], *self.common_options(), *args[words:]])
        finally:
            release_database()

    def invoke(self, args: Sequence[str], env: Mapping[str, str | None] | None = None) -> Invocation:
        """Run one dbt command (`["build", "--select", ...]`) with env set meanwhile."""
        args = list(args)
        invocation = Invocation(args)
        with environment({**ENVIRONMENT, **(env or {})}):
            manifest = None
            if args and args[0] not in WITHOUT_MANIFEST:
                options = parse_options(args)
                reason = self.stale(options)
                if reason is not None:
                    state = project_state(self.project)
                    parse = self._run(["parse", *parse_arguments(args)], None, invocation)
                    invocation.parsed = reason
                    if not parse.success:
                        self.manifest = None
                        invocation.error = parse.exception
                        invocation.exception = str(parse.exception or "dbt parse failed")
                        return invocation
                    self.manifest = parse.result
                    self.parsed_with = (options, state)
                manifest = self.manifest
            result = self._run(args, manifest, invocation)
        invocation.success = bool(result.success)
        if result.exception is not None:
            invocation.error = result.exception
            invocation.exception = str(result.exception)
        if args and args[0] == "parse" and result.success:
            self.manifest = result.result
            self.parsed_with = (parse_options(args), project_state(self.project))
        run = result.result
        if run is not None and hasattr(run, "results"):
            invocation.elapsed_seconds = getattr(run, "elapsed_time", None)
            invocation.results = [
                NodeResult(
                    unique_id=node.node.unique_id,
                    resource_type=str(node.node.resource_type),
                    status=str(node.status),
                    message=node.message,
                    execution_seconds=node.execution_time,
                )
                for node in run.results
            ]
        return invocation
