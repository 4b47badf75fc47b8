"""Inventory of the raw log files: one row per *.jsonl / *.jsonl.gz file below the raw folder.

The raw folder is `raw_dir` (RUNLENS_RAW_DIR). This model only lists and stats the files; it is
rebuilt on every run and is cheap. Each file's identity for incremental loading is its
`file_fingerprint` (size and modification time in nanoseconds): stg_raw_lines reads a file again
exactly when its fingerprint changes, and forgets the lines of files that are gone.
"""

import datetime
import os
import stat as stat_mode

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
IGNORED_PREFIXES = ("_", ".")
INVENTORY_COLUMNS = (
    "file_path varchar, absolute_path varchar, size_bytes bigint, modified_at timestamp, "
    "is_gzip boolean, file_fingerprint varchar"
)


def is_log_name(name):
    """Log files end in .jsonl or .jsonl.gz; names starting with `_` or `.` are not logs (the
    importer's _import_rejects.jsonl, editors' and writers' hidden temporary files)."""
    return not name.startswith(IGNORED_PREFIXES)


def find_log_files(raw_dir):
    """Yield the absolute paths of log files below raw_dir in a stable order (no symlinked folders)."""
    walk_errors = []
    for root, dirs, files in os.walk(raw_dir, onerror=walk_errors.append):
        dirs[:] = sorted(name for name in dirs if is_log_name(name))
        for name in sorted(files):
            if name.endswith(LOG_SUFFIXES) and is_log_name(name):
                yield os.path.join(root, name)
    for error in walk_errors:
        if os.path.abspath(error.filename) == raw_dir:
            raise error


def inventory_row(raw_dir, path):
    relative = os.path.relpath(path, raw_dir).replace(os.sep, "/")
    is_gzip = path.endswith(".gz")
    try:
        stat = os.stat(path)
    except OSError:
        return (relative, path, None, None, is_gzip, "unreadable")
    if not stat_mode.S_ISREG(stat.st_mode):  # a named pipe or device would block or never end
        return (relative, path, None, None, is_gzip, "not_a_regular_file")
    modified_at = datetime.datetime.fromtimestamp(stat.st_mtime, datetime.UTC).replace(tzinfo=None)
    return (relative, path, stat.st_size, modified_at, is_gzip, f"{stat.st_size}:{stat.st_mtime_ns}")


def model(dbt, session):
    raw_dir = os.path.abspath(dbt.config.get("raw_dir"))
    if not os.path.isdir(raw_dir):
        raise FileNotFoundError(
            f"raw log folder {raw_dir} does not exist: set RUNLENS_RAW_DIR to a folder of *.jsonl logs"
        )
    rows = [inventory_row(raw_dir, path) for path in find_log_files(raw_dir)]
    session.execute(f"create or replace temp table raw_file_inventory ({INVENTORY_COLUMNS})")
    if rows:  # one statement for all files: a row-by-row insert costs ~1 ms a file
        columns = list(zip(*rows, strict=True))
        placeholders = ", ".join(f"unnest(${number})" for number in range(1, len(columns) + 1))
        session.execute(f"insert into raw_file_inventory select {placeholders}", [list(column) for column in columns])
    return session.table("raw_file_inventory")
