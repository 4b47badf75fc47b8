"""Inventory and bytes of the raw log files: one row per *.jsonl / *.jsonl.gz file.

This is the only model that touches the file system. It lists the files below the raw folder
(`raw_dir`, from RUNLENS_RAW_DIR), records each file's identity (path, size, modification time),
and hands their bytes to SQL: plain files through DuckDB's read_blob, gzip files decompressed
here. A file that cannot be read keeps its row with `read_error` set and no content, so it is
counted rather than lost. Splitting into lines and all parsing happen in SQL downstream.
"""

import datetime
import os
import zlib

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
INVENTORY_COLUMNS = (
    "file_path varchar, absolute_path varchar, size_bytes bigint, "
    "modified_at timestamp, is_gzip boolean, read_error varchar, gzip_content blob"
)


def find_log_files(raw_dir):
    """Yield the absolute paths of log files below raw_dir, in a stable order."""
    walk_errors = []
    for root, dirs, files in os.walk(raw_dir, onerror=walk_errors.append):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(LOG_SUFFIXES):
                yield os.path.join(root, name)
    for error in walk_errors:
        if os.path.abspath(error.filename) == raw_dir:
            raise error


def read_gzip(path):
    """Return (decompressed bytes, error); bytes decoded before a fault are kept."""
    decompressor = zlib.decompressobj(wbits=31)
    chunks = []
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                chunks.append(decompressor.decompress(block))
        chunks.append(decompressor.flush())
        if not decompressor.eof:
            return b"".join(chunks), "truncated_gzip"
    except zlib.error as error:
        return b"".join(chunks), f"corrupt_gzip: {error}"
    except OSError as error:
        return None, f"unreadable: {error.strerror}"
    return b"".join(chunks), None


def inventory_row(raw_dir, path):
    relative = os.path.relpath(path, raw_dir).replace(os.sep, "/")
    is_gzip = path.endswith(".gz")
    try:
        stat = os.stat(path)
    except OSError as error:
        return (relative, path, None, None, is_gzip, f"unreadable: {error.strerror}", None)
    modified_at = datetime.datetime.fromtimestamp(stat.st_mtime, datetime.UTC).replace(tzinfo=None)
    content, error = read_gzip(path) if is_gzip else (None, None)
    if not is_gzip and not os.access(path, os.R_OK):
        error = "unreadable: permission denied"
    return (relative, path, stat.st_size, modified_at, is_gzip, error, content)


def model(dbt, session):
    raw_dir = os.path.abspath(dbt.config.get("raw_dir"))
    if not os.path.isdir(raw_dir):
        raise FileNotFoundError(
            f"raw log folder {raw_dir} does not exist: set RUNLENS_RAW_DIR to a folder of *.jsonl logs"
        )
    rows = [inventory_row(raw_dir, path) for path in find_log_files(raw_dir)]
    session.execute(f"create or replace temp table raw_file_inventory ({INVENTORY_COLUMNS})")
    if rows:
        session.executemany("insert into raw_file_inventory values (?, ?, ?, ?, ?, ?, ?)", rows)
    plain_paths = [row[1] for row in rows if not row[4] and row[5] is None]
    plain_content = (
        "select filename as absolute_path, content from read_blob($plain_paths)"
        if plain_paths
        else "select null::varchar as absolute_path, null::blob as content where false"
    )
    return session.sql(
        f"""
        with plain_content as ({plain_content})
        select
            inventory.file_path,
            inventory.absolute_path,
            inventory.size_bytes,
            inventory.modified_at,
            inventory.is_gzip,
            inventory.read_error,
            coalesce(inventory.gzip_content, plain_content.content) as content
        from raw_file_inventory as inventory
        left join plain_content on plain_content.absolute_path = inventory.absolute_path
        """,
        params={"plain_paths": plain_paths},
    )
