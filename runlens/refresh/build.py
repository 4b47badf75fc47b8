"""`runlens build`: a crash-safe, one-at-a-time refresh of the marts.

    runlens build [--logs DIR] [--db PATH] [-v] [-- DBT BUILD OPTIONS]

It builds a copy of the database with dbt in this process and replaces the database with it only
when dbt succeeds. What it checks before dbt starts, why a build cut short harms nothing, and what
it prints: docs/internals.md, "The build".
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from runlens.plural import plural
from runlens.raw_logs.as_of import AsOfError, pinned_as_of
from runlens.raw_logs.folder_metadata import MetadataError, read_collections
from runlens.raw_logs.listing import (
    JSON_SUFFIX,
    SUFFIXES_VARIABLE,
    RawFolderError,
    has_log_files,
    json_lines_files,
    log_suffixes,
    no_logs_note,
)
from runlens.raw_logs.trace_listing import has_trace_files
from runlens.refresh import dbt_build
from runlens.refresh.build_summary import summary
from runlens.refresh.database import DATABASE_VARIABLE, DEFAULT_DATABASE
from runlens.refresh.dbt_session import DbtSession, Invocation
from runlens.refresh.file_lock import Busy
from runlens.refresh.file_lock import held as held_lock
from runlens.refresh.project import sample_dir
from runlens.refresh.stopping import deferred, stop_requested, undone_on_exit
from runlens.usage import LOGS_OPTION, RAW_DIR_VARIABLE, build_command, database_folder_missing, raw_dir_option

# A refresh builds and tests the data; dbt's unit tests check the SQL against fixed inputs, so they
# run in development and CI (make test), not on every refresh (as dbt's documentation advises).
REFRESH = ("build", "--exclude-resource-type", "unit_test")
# dbt's words when an incremental model's table has other columns than the model now makes
OUT_OF_SYNC = "schemas on this incremental model are out of sync"
# how many of dbt's error lines a failed build shows without -v (the log file has them all)
SHOWN_ERRORS = 5


class UsageError(Exception):
    """A user mistake: the one line (without `runlens: `) that says what to do; exit status 2."""

    status = 2


class NothingToBuild(UsageError):
    """The raw folder holds no runlens logs: the one line says what it holds instead and what to
    run; exit status 1."""

    status = 1


@dataclass
class BuildOutcome:
    """What a build did: its exit status, the database and raw folder, and dbt's commands."""

    returncode: int
    database: Path
    raw: Path
    has_logs: bool = True
    invocations: list[Invocation] = field(default_factory=list)
    up_to_date: bool = False  # nothing changed since the database was built: no model ran


def database_path(db: str | Path | None = None) -> Path:
    """--db, else RUNLENS_DB, else runlens.duckdb; a relative path from the current folder."""
    return Path(db or os.environ.get(DATABASE_VARIABLE) or DEFAULT_DATABASE).expanduser().resolve()


def raw_folder(logs: str | Path | None = None) -> Path:
    """--logs, else RUNLENS_RAW_DIR, else the bundled sample; a relative path from the current folder."""
    return Path(os.path.abspath(Path(logs or os.environ.get(RAW_DIR_VARIABLE) or sample_dir()).expanduser()))


def check_inputs(raw: Path, database: Path, given_as: str = LOGS_OPTION) -> bool:
    """Whether raw holds logs (or profiler traces); raises UsageError on a raw folder, as-of time or
    database folder that cannot be used. given_as: how the user gave the raw folder (usage.raw_dir_option)."""
    try:
        has_logs = has_log_files(str(raw), given_as) or has_trace_files(str(raw), given_as)
        pinned_as_of(raw)
        read_collections(raw)
    except (RawFolderError, AsOfError, MetadataError) as error:
        raise UsageError(str(error)) from None
    if not database.parent.is_dir():
        raise UsageError(database_folder_missing(database))
    return has_logs


def nothing_to_build(raw: Path, database: Path, given_as: str = LOGS_OPTION) -> str:
    """The line for a raw folder without runlens logs: the other trackers' logs in it, which
    `runlens profile` reads, its `*.json` files of JSON Lines, which RUNLENS_LOG_SUFFIXES reads, or
    that it holds none."""
    from runlens.importers.found import found_logs, looked_for  # the importers: only when there is nothing to build

    suffixes = ", ".join(f"*{suffix}" for suffix in log_suffixes())
    try:
        found = found_logs(raw)
    except OSError:
        found = None
    if found:
        return (
            f"found {found} below {raw}, no runlens logs ({suffixes}): "
            f"`runlens profile {raw}` imports, builds and reports them"
        )
    saved_as_json = json_lines_files(str(raw))
    if saved_as_json:
        command = build_command(database, shlex.quote(str(raw)))
        return (
            f"found {plural(saved_as_json, '*.json file')} of JSON lines below {raw}, no runlens logs: runlens "
            f"reads {suffixes}; `{SUFFIXES_VARIABLE}={JSON_SUFFIX} {command}` reads them as they are "
            "(or name them *.jsonl)"
        )
    other = f"set {given_as} to" if given_as == RAW_DIR_VARIABLE else f"give {given_as}"
    return (
        f"no logs found below {raw}: no runlens logs ({suffixes}), nor {looked_for()} for `runlens profile`: "
        f"{other} the folder your training writes its logs to"
    )


def check_buildable(logs: str | Path | None, db: str | Path | None) -> None:
    """What `runlens build` checks before dbt starts: check_inputs, and that the raw folder holds
    runlens logs (else NothingToBuild: nothing is built, no database made)."""
    given_as = raw_dir_option(logs)
    raw = raw_folder(logs)
    database = database_path(db)
    if not check_inputs(raw, database, given_as):
        raise NothingToBuild(nothing_to_build(raw, database, given_as))


def fsync_directory(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def out_of_date(invocation: Invocation) -> bool:
    """True when the build stopped at an incremental model whose table an earlier version of
    runlens made with other columns: only a full refresh, which reads the raw logs again, can
    rebuild it."""
    return any(OUT_OF_SYNC in (node.message or "") for node in invocation.results) or any(
        OUT_OF_SYNC in line for line in invocation.errors
    )


def remove_copy(building: Path) -> None:
    """The build's copy of the database, its write-ahead log and DuckDB's spill folder beside it."""
    for stale in (building, building.with_name(building.name + ".wal")):
        stale.unlink(missing_ok=True)
    shutil.rmtree(building.with_name(building.name + ".tmp"), ignore_errors=True)


def copy_for_building(database: Path, building: Path) -> None:
    remove_copy(building)
    if database.exists():
        shutil.copyfile(database, building)
        wal = database.with_name(database.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, building.with_name(building.name + ".wal"))


def show_failure(invocation: Invocation, session: DbtSession, err: TextIO) -> None:
    """dbt's error lines (the first few, unless -v showed them already) and where its log is."""
    if session.verbose:
        return
    if invocation.exception and not invocation.errors:
        print(invocation.exception, file=err)
    for line in invocation.errors[:SHOWN_ERRORS]:
        print(line, file=err)
    if len(invocation.errors) > SHOWN_ERRORS:
        print(f"... and {len(invocation.errors) - SHOWN_ERRORS} more errors", file=err)
    if not invocation.replayed:
        print(f"(dbt's log: {session.log_path / 'dbt.log'})", file=err)


def write_timings(path: Path, invocations: list[Invocation]) -> None:
    """dbt's elapsed time and each node's seconds, in the shape of dbt's run_results.json (what the
    benchmark reads: scripts/benchmark/measure.py where_time_goes), without dbt writing its
    artifacts; and for each dbt command, whether it parsed the project and whether it ran dbt's
    recorded plan (runlens/refresh/dbt_build.py) instead of dbt; a plan's phases are its seconds outside the
    nodes (reading the raw folder, the commit, closing the database)."""
    last = invocations[-1] if invocations else Invocation([], success=True, elapsed_seconds=0.0)
    results = [
        {"unique_id": node.unique_id, "status": node.status, "execution_time": node.execution_seconds}
        for node in last.results
    ]
    parsed = [invocation.parsed for invocation in invocations]
    replayed = [invocation.replayed for invocation in invocations]
    document = {
        "elapsed_time": last.elapsed_seconds,
        "parsed": parsed,
        "replayed": replayed,
        "phases": {name: round(seconds, 4) for name, seconds in last.phases.items()},
        "results": results,
    }
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def nothing_selected(dbt_args: Sequence[str], invocation: Invocation, database: Path) -> str:
    """The line for dbt options that selected no node of the project: dbt's own complaint, passed on."""
    complaint = next((line for line in invocation.lines if "does not match any" in line), None)
    said = f" (dbt: {complaint.rstrip('.')})" if complaint else ""
    state = "still holds the previous build" if database.exists() else "was not written"
    return (
        f"dbt's selection `{' '.join(dbt_args)}` matched no node of the project{said}, so nothing was built "
        f"and {database} {state}: select models by their names (`runlens marts` lists the marts), "
        "or build without the dbt options"
    )


def refresh_copy(
    session: DbtSession, raw: Path, database: Path, dbt_args: Sequence[str], outcome: BuildOutcome, timings, err
) -> None:
    """Build a copy of the database and swap it in when dbt's build (or its plan) succeeded; on a
    failure the database stays as it was and outcome.returncode says so."""
    building = database.with_name(database.name + ".next")
    with undone_on_exit(lambda: remove_copy(building)):
        copy_for_building(database, building)
        environment = {"RUNLENS_DB": str(building), "RUNLENS_RAW_DIR": str(raw)}
        try:
            invocation = dbt_build.build(session, raw, building, [*REFRESH, *dbt_args], environment)
            outcome.invocations.append(invocation)
            if not invocation.success and "--full-refresh" not in dbt_args and out_of_date(invocation):
                print(
                    f"runlens: {database} was built by an earlier runlens whose tables differ from this one's: "
                    "building it again whole from the raw logs (--full-refresh)",
                    file=err,
                )
                invocation = dbt_build.build(
                    session, raw, building, [*REFRESH, *dbt_args, "--full-refresh"], environment
                )
                outcome.invocations.append(invocation)
        except BaseException:
            remove_copy(building)
            raise
        if invocation.success and not invocation.results:
            remove_copy(building)
            raise UsageError(nothing_selected(dbt_args, invocation, database))
        if timings is not None:
            write_timings(timings, outcome.invocations)
        if isinstance(invocation.error, KeyboardInterrupt) or stop_requested():
            remove_copy(building)
            raise KeyboardInterrupt
        if not invocation.success:
            remove_copy(building)
            show_failure(invocation, session, err)
            print(f"runlens: dbt build failed; {database} still holds the previous build", file=err)
            outcome.returncode = invocation.returncode
            return
        with open(building, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(building, database)
        fsync_directory(database.parent)


@contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """The build's lock for the block (raises Busy when another build holds it). The lock file
    goes with the lock, also when a stop's deadline exits the process at once; a signal that comes
    while the lock is taken or let go takes effect after, so no lock file outlives the command."""
    with ExitStack() as stack:
        with deferred():
            lock = stack.enter_context(held_lock(path))
            stack.enter_context(undone_on_exit(lock.remove))
        try:
            yield
        finally:
            with deferred():
                stack.close()


def build(
    logs: str | Path | None = None,
    db: str | Path | None = None,
    dbt_args: Sequence[str] = (),
    *,
    session: DbtSession | None = None,
    reports: str | None = None,
    timings: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> BuildOutcome:
    """Build the marts of the logs into the database; raises UsageError on a user mistake.
    reports is the summary's last line (where the pages are, or how to write them); None prints
    no summary. timings: a file for dbt's elapsed time and each node's seconds."""
    out, err = out or sys.stdout, err or sys.stderr
    raw, database = raw_folder(logs), database_path(db)
    has_logs = check_inputs(raw, database, raw_dir_option(logs))
    outcome = BuildOutcome(0, database, raw, has_logs)
    own_session = session is None
    session = session or DbtSession()
    lock_path = database.with_name(database.name + ".lock")
    try:
        with build_lock(lock_path):
            if "--full-refresh" not in dbt_args and dbt_build.up_to_date(session, raw, database, [*REFRESH, *dbt_args]):
                outcome.up_to_date = True
                print(f"runlens: nothing changed since {database} was built: no model ran", file=err)
                if timings is not None:
                    write_timings(timings, [])
            else:
                refresh_copy(session, raw, database, dbt_args, outcome, timings, err)
    except Busy:
        raise UsageError(f"another build holds {lock_path}: wait for it to finish, then build again") from None
    finally:
        if own_session:
            session.close()
    if outcome.returncode != 0:
        return outcome
    if not has_logs:
        print(f"runlens: {no_logs_note(str(raw))}", file=err)
    if reports is not None:
        for line in summary(database, raw, reports):
            print(line, file=out)
    return outcome
