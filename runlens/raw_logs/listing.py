"""Which files below the raw folder are logs, and each one's identity (its fingerprint).

The raw folder itself is checked here, and only here (RawFolderError). The rules, and who calls the
check: docs/internals.md, "Which files are logs".
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import stat as stat_mode
from typing import NamedTuple

DEFAULT_RAW_DIR = "data/sample"
LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
# more endings of log files, comma-separated (`.json`: JSON Lines saved under that name)
SUFFIXES_VARIABLE = "RUNLENS_LOG_SUFFIXES"
JSON_SUFFIX = ".json"
FIRST_LINE_BYTES = 1 << 16  # what json_lines_files reads of a file to tell JSON Lines
IGNORED_PREFIXES = ("_", ".")
# profiler traces (trace_listing.py): never logs, even where RUNLENS_LOG_SUFFIXES adds `.json`
TRACE_SUFFIXES = (".pt.trace.json", ".pt.trace.json.gz")
# the fingerprint and unread reason of a file that cannot be opened at all (found when listed)
UNSTATABLE = ("unreadable", "unreadable: cannot stat")
NOT_A_REGULAR_FILE = ("not_a_regular_file", "unreadable: not a regular file")
RAW_DIR_VARIABLE = "RUNLENS_RAW_DIR"
WHAT_TO_DO = f"{RAW_DIR_VARIABLE} to a folder of *.jsonl logs"


class RawFolderError(ValueError):
    """The raw folder cannot be read as a folder of logs; the message is one line that says what to do."""


class LogFile(NamedTuple):
    file_path: str  # relative to the raw folder, `/`-separated
    absolute_path: str
    size_bytes: int | None
    modified_at: datetime.datetime | None  # UTC, naive
    is_gzip: bool
    file_fingerprint: str  # the file's identity: a build reads the file again when it changes
    unread_reason: str | None = None  # why the file cannot be read at all; None when it can be opened


def raw_dir() -> str:
    """The raw folder: RUNLENS_RAW_DIR, else the bundled sample (relative to the current folder)."""
    return os.environ.get(RAW_DIR_VARIABLE) or DEFAULT_RAW_DIR


def is_log_name(name: str) -> bool:
    return not name.startswith(IGNORED_PREFIXES)


def what_to_do(given_as: str = RAW_DIR_VARIABLE, one_file: bool = False) -> str:
    """How to point the build at another folder: set the variable, or give the option (`--logs`)."""
    if given_as.startswith("-"):
        return f"give {given_as} a folder of *.jsonl logs" + (", not one file" if one_file else "")
    return f"set {given_as} to a folder of *.jsonl logs" + (", not to one file" if one_file else "")


def check_raw_dir(raw_dir: str, given_as: str = RAW_DIR_VARIABLE) -> str:
    """The raw folder's absolute path; raises RawFolderError when it is missing, no folder or
    unreadable, saying how to give another (given_as: RUNLENS_RAW_DIR or --logs)."""
    raw_dir = os.path.abspath(raw_dir)
    if not os.path.exists(raw_dir):
        raise RawFolderError(f"raw log folder {raw_dir} does not exist: {what_to_do(given_as)}")
    if os.path.isfile(raw_dir):
        raise RawFolderError(f"raw log folder {raw_dir} is a file, not a folder: {what_to_do(given_as, one_file=True)}")
    if not os.path.isdir(raw_dir):
        raise RawFolderError(f"raw log folder {raw_dir} is not a folder: {what_to_do(given_as)}")
    try:
        with os.scandir(raw_dir):  # a folder that cannot be listed
            pass
        if not os.access(raw_dir, os.X_OK):  # ... or whose files cannot be opened
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), raw_dir)
    except OSError as error:
        raise unreadable(raw_dir, error, given_as) from None
    return raw_dir


def unreadable(raw_dir: str, error: OSError, given_as: str = RAW_DIR_VARIABLE) -> RawFolderError:
    reason = (error.strerror or str(error)).lower()
    return RawFolderError(
        f"raw log folder {raw_dir} cannot be read ({reason}): let this user read it, or {what_to_do(given_as)}"
    )


def log_suffixes() -> tuple[str, ...]:
    """The endings of log files: `.jsonl`, `.jsonl.gz` and those RUNLENS_LOG_SUFFIXES adds."""
    added = (suffix.strip() for suffix in os.environ.get(SUFFIXES_VARIABLE, "").split(","))
    return LOG_SUFFIXES + tuple(suffix if suffix.startswith(".") else "." + suffix for suffix in added if suffix)


def find_paths(raw_dir: str, suffixes: tuple[str, ...], given_as: str = RAW_DIR_VARIABLE):
    """Yield the absolute paths of the files below raw_dir (absolute) that end in one of suffixes
    and are not ignored, in a stable order."""
    walk_errors = []
    for root, dirs, files in os.walk(raw_dir, onerror=walk_errors.append):
        dirs[:] = sorted(name for name in dirs if is_log_name(name))
        for name in sorted(files):
            if name.endswith(suffixes) and is_log_name(name):
                yield os.path.join(root, name)
    for error in walk_errors:
        if os.path.abspath(error.filename) == raw_dir:
            raise unreadable(raw_dir, error, given_as)


def find_log_paths(raw_dir: str, given_as: str = RAW_DIR_VARIABLE):
    """Yield the absolute paths of log files below raw_dir (absolute) in a stable order."""
    for path in find_paths(raw_dir, log_suffixes(), given_as):
        if not path.endswith(TRACE_SUFFIXES):
            yield path


def json_lines_files(raw_dir: str) -> int:
    """How many `*.json` files below raw_dir (not read as logs) hold JSON Lines: their first line is
    a JSON object, as a runlens log's is (a pretty-printed or empty file's is not)."""
    count = 0
    for path in find_paths(os.path.abspath(raw_dir), (JSON_SUFFIX,)):
        try:
            with open(path, "rb") as handle:
                first = handle.read(FIRST_LINE_BYTES).split(b"\n", 1)[0]
            count += isinstance(json.loads(first), dict)
        except (OSError, ValueError):
            continue
    return count


def has_log_files(raw_dir: str, given_as: str = RAW_DIR_VARIABLE) -> bool:
    """Whether any log file lies below the raw folder (checked as check_raw_dir does); stops at the first."""
    return next(find_log_paths(check_raw_dir(raw_dir, given_as), given_as), None) is not None


def no_logs_note(raw_dir: str) -> str:
    """The one line that says a build found no logs and made empty marts."""
    suffixes = ", ".join(f"*{suffix}" for suffix in log_suffixes())
    return f"no logs ({suffixes}) found below {os.path.abspath(raw_dir)}; the marts are empty"


def relative_path(raw_dir: str, path: str) -> str:
    """path below raw_dir (absolute, normalized), relative to it with `/` between folders; the
    prefix cut off when path starts with it (os.path.relpath took 14 us a file, 1.4 s at 100k files)."""
    prefix = raw_dir if raw_dir.endswith(os.sep) else raw_dir + os.sep
    relative = path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, raw_dir)
    return relative.replace(os.sep, "/")


def describe(raw_dir: str, path: str) -> LogFile:
    relative = relative_path(raw_dir, path)
    is_gzip = path.endswith(".gz")
    try:
        stat = os.stat(path)
    except OSError:
        return LogFile(relative, path, None, None, is_gzip, *UNSTATABLE)
    if not stat_mode.S_ISREG(stat.st_mode):  # a named pipe or device would block or never end
        return LogFile(relative, path, None, None, is_gzip, *NOT_A_REGULAR_FILE)
    modified_at = datetime.datetime.fromtimestamp(stat.st_mtime, datetime.UTC).replace(tzinfo=None)
    return LogFile(relative, path, stat.st_size, modified_at, is_gzip, f"{stat.st_size}:{stat.st_mtime_ns}")


def list_log_files(raw_dir: str, given_as: str = RAW_DIR_VARIABLE) -> list[LogFile]:
    """Every log file below raw_dir; raises RawFolderError (check_raw_dir) when that is no readable folder."""
    raw_dir = check_raw_dir(raw_dir, given_as)
    return [describe(raw_dir, path) for path in find_log_paths(raw_dir, given_as)]
