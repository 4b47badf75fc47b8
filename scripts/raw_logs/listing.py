"""Which files below the raw folder are logs, and each one's identity (its fingerprint).

A log file ends in `.jsonl` or `.jsonl.gz`; names starting with `_` or `.` are not logs, nor is
anything below a folder so named (the importer's `_import_rejects.jsonl`, editors' and writers'
hidden temporary files); symlinked folders are not followed. A file's identity for incremental
loading is `<size>:<mtime in ns>`: a build reads a file again exactly when it changes.
"""

from __future__ import annotations

import datetime
import os
import stat as stat_mode
from typing import NamedTuple

DEFAULT_RAW_DIR = "data/sample"
LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
IGNORED_PREFIXES = ("_", ".")
UNSTATABLE = "unreadable"
NOT_A_REGULAR_FILE = "not_a_regular_file"


class LogFile(NamedTuple):
    file_path: str  # relative to the raw folder, `/`-separated
    absolute_path: str
    size_bytes: int | None
    modified_at: datetime.datetime | None  # UTC, naive
    is_gzip: bool
    file_fingerprint: str


def raw_dir() -> str:
    """The raw folder: RUNLENS_RAW_DIR, else the bundled sample (relative to the current folder)."""
    return os.environ.get("RUNLENS_RAW_DIR") or DEFAULT_RAW_DIR


def is_log_name(name: str) -> bool:
    return not name.startswith(IGNORED_PREFIXES)


def find_log_paths(raw_dir: str):
    """Yield the absolute paths of log files below raw_dir in a stable order."""
    walk_errors = []
    for root, dirs, files in os.walk(raw_dir, onerror=walk_errors.append):
        dirs[:] = sorted(name for name in dirs if is_log_name(name))
        for name in sorted(files):
            if name.endswith(LOG_SUFFIXES) and is_log_name(name):
                yield os.path.join(root, name)
    for error in walk_errors:
        if os.path.abspath(error.filename) == raw_dir:
            raise error


def describe(raw_dir: str, path: str) -> LogFile:
    relative = os.path.relpath(path, raw_dir).replace(os.sep, "/")
    is_gzip = path.endswith(".gz")
    try:
        stat = os.stat(path)
    except OSError:
        return LogFile(relative, path, None, None, is_gzip, UNSTATABLE)
    if not stat_mode.S_ISREG(stat.st_mode):  # a named pipe or device would block or never end
        return LogFile(relative, path, None, None, is_gzip, NOT_A_REGULAR_FILE)
    modified_at = datetime.datetime.fromtimestamp(stat.st_mtime, datetime.UTC).replace(tzinfo=None)
    return LogFile(relative, path, stat.st_size, modified_at, is_gzip, f"{stat.st_size}:{stat.st_mtime_ns}")


def list_log_files(raw_dir: str) -> list[LogFile]:
    """Every log file below raw_dir; raises FileNotFoundError with what to do when it is no folder."""
    raw_dir = os.path.abspath(raw_dir)
    if not os.path.isdir(raw_dir):
        raise FileNotFoundError(
            f"raw log folder {raw_dir} does not exist: set RUNLENS_RAW_DIR to a folder of *.jsonl logs"
        )
    return [describe(raw_dir, path) for path in find_log_paths(raw_dir)]
