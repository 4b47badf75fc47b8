"""The PostgreSQL reader: brings the raw tables (raw_tables.py) in `<schema>` in step with the raw
folder, from the client, so the server needs no access to the log files.

The files are listed and read by the same code as on DuckDB (listing.py, reading.py), split into
lines here by the line rules (models/staging/input_contract.md, "What a line is"), as
raw_tables.split_lines spells them, and the rows travel by COPY, all in one transaction.
Incremental by file, as on DuckDB (raw_tables.plan_reading). The profiler traces
(trace_listing.py) are read as a stream into CSV files of a batch of events each, which COPY sends
as they are (trace_batches.py, the files DuckDB's reader loads), so no trace is held in memory.

PostgreSQL text cannot hold a NUL character: a NUL in a line is written as the six characters
`\\u0000` (input_contract.md), which keeps such a line invalid JSON as it is on DuckDB; a NUL in a
trace's text (an event's name, a device's) is written the same way.
"""

from __future__ import annotations

import io
import os
import tempfile
from datetime import datetime

from runlens.raw_logs.as_of import pinned_as_of
from runlens.raw_logs.folder_metadata import read_collections
from runlens.raw_logs.listing import list_log_files
from runlens.raw_logs.raw_tables import (
    TABLES,
    ReadSummary,
    loaded_at_now,
    log_file_row,
    plan_reading,
    split_lines,
    trace_file_row,
)
from runlens.raw_logs.reading import read_log_text
from runlens.raw_logs.trace_batches import EventBatches, without_nul
from runlens.raw_logs.trace_listing import list_trace_files
from runlens.raw_logs.trace_reading import TraceHeader, file_row

TYPES = {
    "varchar": "text",
    "bigint": "bigint",
    "timestamp": "timestamp",
    "boolean": "boolean",
    "double": "double precision",
}
BATCH_ROWS = 200_000  # lines sent by one COPY


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def csv_field(value) -> str:
    """A CSV field for COPY: NULL unquoted and empty, anything else quoted (so '' stays '')."""
    if value is None:
        return ""
    if isinstance(value, bool):
        value = "true" if value else "false"
    return '"' + str(value).replace('"', '""') + '"'


def copy_rows(cursor, table: str, rows: list[tuple]) -> None:
    """COPY rows into a server table as CSV."""
    if not rows:
        return
    text = "".join(",".join(csv_field(value) for value in row) + "\n" for row in rows)
    cursor.copy_expert(f"copy {table} from stdin with (format csv)", io.StringIO(text))


def create_tables(cursor, schema: str) -> None:
    cursor.execute(f"create schema if not exists {schema}")
    for table, columns in TABLES.items():
        listed = ", ".join(f"{name} {TYPES[kind]}" for name, kind in columns)
        cursor.execute(f"create table if not exists {schema}.{table} ({listed})")


def refresh_traces(cursor, target: str, raw_dir: str, loaded_at: datetime, *, full: bool = False) -> int:
    """Bring trace_files and trace_events in target in step with the traces below raw_dir (inside
    the caller's transaction), incremental by file; returns how many traces were read."""
    cursor.execute(f"select file_path, file_fingerprint from {target}.trace_files")
    plan = plan_reading(list_trace_files(raw_dir), dict(cursor.fetchall()), full)
    forgotten = plan.to_forget + [trace.file_path for trace in plan.to_read]
    for table in ("trace_files", "trace_events"):
        cursor.execute(f"delete from {target}.{table} where file_path = any(%s)", (forgotten,))
    records = []
    with tempfile.TemporaryDirectory(prefix="runlens-traces-") as folder:
        batches = EventBatches(folder, nul_as_text=True)
        for trace in plan.to_read:
            header = TraceHeader()
            for path, _ in batches.of(trace, header):
                with open(path, "rb") as handle:
                    cursor.copy_expert(f"copy {target}.trace_events from stdin with (format csv)", handle)
                os.remove(path)
            records.append(tuple(map(without_nul, trace_file_row(file_row(trace, header), loaded_at))))
    copy_rows(cursor, f"{target}.trace_files", records)
    return len(plan.to_read)


def refresh(connection, raw_dir: str, schema: str, *, full: bool = False) -> ReadSummary:
    """Bring the raw tables in schema in step with raw_dir (every file read again when full);
    raises RawFolderError, AsOfError or MetadataError (one line each) on a folder or metadata file
    that cannot be used."""
    started_at = loaded_at_now()
    listed = list_log_files(raw_dir)
    collections = read_collections(raw_dir)
    pinned = pinned_as_of(raw_dir)
    target = quoted(schema)
    with connection, connection.cursor() as cursor:
        create_tables(cursor, target)
        cursor.execute(f"select file_path, file_fingerprint from {target}.log_files")
        plan = plan_reading(listed, dict(cursor.fetchall()), full)
        forgotten = plan.to_forget + [log_file.file_path for log_file in plan.to_read]
        for table in ("log_files", "log_lines"):
            cursor.execute(f"delete from {target}.{table} where file_path = any(%s)", (forgotten,))
        batch, read_lines, records = [], 0, []
        for log_file in plan.to_read:
            log_text = read_log_text(log_file)
            records.append(log_file_row(log_file, {log_file.file_path: log_text.read_error}, started_at))
            text = (log_text.text or "").replace("\x00", "\\u0000")
            for line in split_lines(text, log_text.invalid_line_numbers):
                batch.append((log_file.file_path, log_file.file_fingerprint, *line))
            if len(batch) >= BATCH_ROWS:
                read_lines += len(batch)
                copy_rows(cursor, f"{target}.log_lines", batch)
                batch = []
        read_lines += len(batch)
        copy_rows(cursor, f"{target}.log_lines", batch)
        copy_rows(cursor, f"{target}.log_files", records)
        refresh_traces(cursor, target, raw_dir, started_at, full=full)
        cursor.execute(f"delete from {target}.collections")
        columns = [name for name, _ in TABLES["collections"]]
        copy_rows(cursor, f"{target}.collections", [tuple(row.get(name) for name in columns) for row in collections])
        cursor.execute(f"delete from {target}.build_context")
        copy_rows(cursor, f"{target}.build_context", [(os.path.abspath(raw_dir), started_at, pinned, None)])
        for table in ("log_files", "log_lines", "trace_files", "trace_events"):
            cursor.execute(f"analyze {target}.{table}")
    return ReadSummary(len(listed), len(plan.to_read), read_lines, len(set(plan.to_forget)))
