"""The watch's loop (`runlens watch`, runlens/commands/watch.py): keep the marts and the pages up to
date while the logs grow.

When it refreshes, how it stops, and which pages it renders again: docs/internals.md, "The watch".
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import duckdb

from runlens.plural import plural
from runlens.raw_logs.listing import RawFolderError, list_log_files
from runlens.raw_logs.trace_listing import list_trace_files
from runlens.refresh import build as building
from runlens.refresh.build_summary import Runs, fetch
from runlens.refresh.dbt_session import DbtSession
from runlens.refresh.stopping import Stopping
from runlens.refresh.stopping import stop_requested as _stop_requested
from runlens.report.data import load_data_quality_totals
from runlens.usage import LOGS_OPTION, raw_dir_option

SHOWN_COLLECTIONS = 3
SHOWN_FILES = 3
# a changed file whose last line has no newline yet and is no whole JSON value is being written:
# the watch waits for the rest of the line up to this many settle times, then reads it as it is
UNFINISHED_SETTLES = 15
TAIL_BYTES = 1 << 16  # what is read of a file's end to find its last line


def check_stop() -> None:
    """Raise KeyboardInterrupt when Ctrl-C or SIGTERM came while an `except` took it for an error."""
    if _stop_requested():
        raise KeyboardInterrupt


def folder_state(raw: Path, given_as: str = LOGS_OPTION) -> tuple:
    """Every log file and profiler trace below raw with its fingerprint (size and modification time)."""
    files = list_log_files(str(raw), given_as) + list_trace_files(str(raw), given_as)
    return tuple(sorted((found.file_path, found.file_fingerprint) for found in files))


def database_identity(database: Path) -> tuple | None:
    """Which file the database is (a build swaps a new one in), None when there is none."""
    try:
        stat = database.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def file_changes(before: tuple, after: tuple) -> list[str]:
    """What changed between two states of the folder, one entry per file: `new a.jsonl`,
    `changed b.jsonl`, `removed c.jsonl`, in the order of their paths."""
    old, new = dict(before), dict(after)
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path not in old:
            changes.append(f"new {path}")
        elif path not in new:
            changes.append(f"removed {path}")
        elif old[path] != new[path]:
            changes.append(f"changed {path}")
    return changes


def has_unfinished_line(path: Path) -> bool:
    """Whether the plain log file at path ends in a line still being written: no newline after it
    yet, and not a whole JSON value (a finished last line without its newline is read as it is)."""
    if path.name.endswith(".gz"):
        return False
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read()
    except OSError:
        return False
    last = tail.rsplit(b"\n", 1)[-1]
    if not last.strip():
        return False
    try:
        json.loads(last)
    except ValueError:  # cut mid-line (or mid-character)
        return True
    return False


def changes_phrase(changes: list[str]) -> str:
    """`1 file changed (new a.jsonl)`: the count and the first few files by name."""
    shown = "; ".join(changes[:SHOWN_FILES])
    if len(changes) > SHOWN_FILES:
        shown += f"; and {len(changes) - SHOWN_FILES} more"
    return f"{plural(len(changes), 'file')} changed ({shown})"


def refresh_line(database: Path, seconds: float, rendered: list[str], build_seconds: float | None = None) -> str:
    """The one line a finished refresh prints, its figures read from the marts; with the build's
    seconds, its time split between the build and the pages."""
    with duckdb.connect(str(database), read_only=True) as connection:
        lines = load_data_quality_totals(connection)
        runs = fetch(connection, "runs", Runs)[0]
    pages = ", ".join(rendered[:SHOWN_COLLECTIONS])
    if len(rendered) > SHOWN_COLLECTIONS:
        pages += f" and {len(rendered) - SHOWN_COLLECTIONS} more"
    split = "" if build_seconds is None else f" (build {build_seconds:.1f} s, pages {seconds - build_seconds:.1f} s)"
    return (
        f"runlens: {clock()} refreshed in {seconds:.1f} s{split}: {plural(lines.files, 'log file')}, "
        f"{plural(lines.accepted, 'line')} accepted, {lines.rejected} rejected, "
        f"{plural(runs.analyzed, 'run')} analyzed, {runs.excluded} excluded; "
        f"pages: index{', ' + pages if pages else ''}"
    )


def clock() -> str:
    return datetime.now().strftime("%H:%M:%S")


class Watcher:
    """One raw folder, one database, one folder of pages, one dbt session."""

    def __init__(self, logs, db, out: Path, session: DbtSession, say: Callable[[str], None] | None = None) -> None:
        self.raw = building.raw_folder(logs)
        self.given_as = raw_dir_option(logs)  # how the user gave the folder, for the messages
        self.database = building.database_path(db)
        self.out = out
        self.session = session
        self.say = say or (lambda line: print(line, flush=True))  # one line per refresh, as it happens
        self.state: tuple = ()
        self.refreshes = 0
        self.phase = "starting"  # starting, watching, building, rendering
        self.last_refresh: str | None = None  # the clock time of the last finished refresh
        self.pages_behind = False  # a refresh replaced the database and its pages were not all rendered
        self.database_before: tuple | None = None  # the database file when the refresh began

    def refresh(self, state: tuple) -> bool:
        """Build and render; False when the build failed (the database is as it was)."""
        from runlens.report.render import ReportError, render_reports

        started = time.perf_counter()
        self.phase, self.database_before = "building", database_identity(self.database)
        if self.refreshes:
            self.say(f"runlens: {clock()} {changes_phrase(file_changes(self.state, state))}: refreshing")
        self.state = state
        outcome = building.build(self.raw, self.database, session=self.session, reports=None)
        check_stop()
        if outcome.returncode != 0:
            self.phase = "watching"
            return False
        built = time.perf_counter()
        self.phase, self.pages_behind = "rendering", True
        changed: list[str] = []
        try:
            render_reports(self.database, self.out, changed=changed)
        except ReportError as error:
            check_stop()
            self.say(f"runlens: {error}")
            self.phase = "watching"
            return False
        check_stop()
        self.refreshes += 1
        self.last_refresh, self.pages_behind, self.phase = clock(), False, "watching"
        self.say(refresh_line(self.database, time.perf_counter() - started, changed, built - started))
        return True

    def wait_for_change(self, interval: float, settle: float) -> tuple:
        """The folder's state once it changed and then stayed still for settle seconds, with no
        changed file's last line still being written (for at most UNFINISHED_SETTLES settle times)."""
        while True:
            time.sleep(interval)
            state = folder_state(self.raw, self.given_as)
            if state == self.state:
                continue
            state = self.still(state, interval, settle)
            waiting_since = time.monotonic()
            while self.unfinished(state) and time.monotonic() - waiting_since < UNFINISHED_SETTLES * settle:
                time.sleep(interval)
                now = folder_state(self.raw, self.given_as)
                if now != state:
                    state = self.still(now, interval, settle)
            return state

    def still(self, state: tuple, interval: float, settle: float) -> tuple:
        """The folder's state once it stayed still for settle seconds, from state."""
        still_since = time.monotonic()
        while time.monotonic() - still_since < settle:
            time.sleep(min(interval, settle))
            now = folder_state(self.raw, self.given_as)
            if now != state:
                state, still_since = now, time.monotonic()
        return state

    def unfinished(self, state: tuple) -> list[str]:
        """The files new or changed since the last refresh whose last line is still being written."""
        old = dict(self.state)
        return [
            path for path, fingerprint in state if old.get(path) != fingerprint and has_unfinished_line(self.raw / path)
        ]

    def stopped_line(self) -> str:
        """The one line that says, when the watch stops, what state the database and pages are in."""
        database, out = self.database, self.out
        if self.phase == "building" and database_identity(database) != self.database_before:
            self.pages_behind = True  # the build swapped its database in: the pages were next
        if self.pages_behind:
            return (
                f"runlens: stopped while rendering; {database} holds the newest refresh, but some pages in {out} "
                f"are older: `runlens report --db {database} --out {out}` renders them all"
            )
        if self.last_refresh is None:
            state = "as it was" if database.exists() else "not built yet"
            return f"runlens: stopped before the first build finished; {database} is {state}"
        during = " during a refresh" if self.phase == "building" else ""
        return (
            f"runlens: stopped{during}; {database} holds the last finished refresh ({self.last_refresh}), "
            f"and the pages in {out} show it"
        )


def watch(logs, db, out: Path, interval: float, settle: float, verbose: bool = False) -> int:
    """Refresh once, then every time the folder changed and stayed still for settle seconds (looking
    every interval seconds), until Ctrl-C or SIGTERM; the exit status."""
    with DbtSession(verbose=verbose) as session:
        watcher = Watcher(logs, db, out, session)
        building.check_inputs(watcher.raw, watcher.database, watcher.given_as)
        with Stopping(watcher.stopped_line).installed() as stopping, stopping.cleanup(session.close):
            try:
                watcher.say(f"runlens: watching {watcher.raw} (Ctrl-C stops); database {watcher.database}, pages {out}")
                watcher.refresh(folder_state(watcher.raw, watcher.given_as))
                watcher.phase = "watching"
                while True:
                    check_stop()
                    watcher.refresh(watcher.wait_for_change(interval, settle))
            except BaseException as error:  # an interrupt (DuckDB raises its own error for one)
                if not stopping.requested and not isinstance(error, KeyboardInterrupt):
                    if isinstance(error, RawFolderError):
                        print(f"runlens: {error}", file=sys.stderr)
                        return 2
                    raise
                return stopping.end()
