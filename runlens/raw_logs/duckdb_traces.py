"""The DuckDB reader's part for traces: the raw tables trace_files and trace_events in step with
the trace files below the raw folder, incremental by file as the logs are (raw_tables.plan_reading),
inside the reading's transaction (duckdb_reader.refresh).

Each trace is decoded by DuckDB's own JSON functions (trace_decoding.py), the same rows about ten
times faster; a trace that way declines (too large to hold whole, text DuckDB and Python would read
otherwise, a fault) is read as a stream, its events going to DuckDB a batch at a time through a
CSV file in a temporary folder (trace_batches.py, as on the other engines: DuckDB's CSV reader
takes them far faster than one parameterised insert per row), so no more than an event is held in
Python.
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime

import duckdb

from runlens.raw_logs import trace_decoding
from runlens.raw_logs.duckdb_rows import insert_rows
from runlens.raw_logs.listing import LogFile
from runlens.raw_logs.raw_tables import TABLES, plan_reading, trace_file_row
from runlens.raw_logs.trace_batches import EventBatches
from runlens.raw_logs.trace_listing import list_trace_files
from runlens.raw_logs.trace_reading import TraceHeader, file_row

EVENT_TYPES = {"varchar": "VARCHAR", "bigint": "BIGINT", "double": "DOUBLE"}


def loaded_traces(connection: duckdb.DuckDBPyConnection, schema: str) -> dict[str, str]:
    return dict(connection.execute(f"select file_path, file_fingerprint from {schema}.trace_files").fetchall())


def forget_traces(connection: duckdb.DuckDBPyConnection, schema: str, file_paths: list[str]) -> None:
    if not file_paths:
        return
    connection.execute("create or replace temp table forgotten_traces (file_path varchar)")
    insert_rows(connection, "forgotten_traces", [("file_path", "varchar")], [(path,) for path in file_paths])
    for table in ("trace_files", "trace_events"):
        connection.execute(f"delete from {schema}.{table} where file_path in (select file_path from forgotten_traces)")
    connection.execute("drop table forgotten_traces")


def insert_batch(connection: duckdb.DuckDBPyConnection, schema: str, path: str) -> None:
    """The events written to the CSV file at path into trace_events."""
    columns = "{" + ", ".join(f"'{name}': '{EVENT_TYPES[kind]}'" for name, kind in TABLES["trace_events"]) + "}"
    connection.execute(
        f"insert into {schema}.trace_events select * from read_csv(?, header = false, quote = '\"', "
        f"escape = '\"', columns = {columns}, auto_detect = false, null_padding = false, "
        "allow_quoted_nulls = false)",
        [path],
    )


def stream_one(connection: duckdb.DuckDBPyConnection, schema: str, trace: LogFile, batches: EventBatches) -> dict:
    """The trace's events into trace_events by the streaming reader; its trace_files columns."""
    header = TraceHeader()
    for path, _ in batches.of(trace, header):
        insert_batch(connection, schema, path)
        os.remove(path)
    return file_row(trace, header)


def read_batch(
    connection: duckdb.DuckDBPyConnection,
    schema: str,
    traces: list[LogFile],
    decoder: trace_decoding.Decoder,
    batches: EventBatches,
) -> list[dict]:
    """The traces' events into trace_events, decoded by DuckDB where it may (trace_decoding.py), the
    others by the streaming reader; their trace_files columns."""
    headers, declined, files = decoder.decode(traces)
    for path in files:
        connection.execute(f"insert into {schema}.trace_events select * from read_parquet(?)", [path])
        os.remove(path)
    return [
        file_row(trace, headers[trace.file_path])
        if trace.file_path not in declined
        else stream_one(connection, schema, trace, batches)
        for trace in traces
    ]


def refresh_traces(
    connection: duckdb.DuckDBPyConnection, schema: str, raw_dir: str, loaded_at: datetime, *, full: bool = False
) -> int:
    """Bring trace_files and trace_events in step with the traces below raw_dir (tables made by
    the caller, inside its transaction); returns how many traces were read."""
    plan = plan_reading(list_trace_files(raw_dir), loaded_traces(connection, schema), full)
    forget_traces(connection, schema, plan.to_forget + [trace.file_path for trace in plan.to_read])
    if not plan.to_read:
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="runlens-traces-") as folder:
        batches, decoder = EventBatches(folder), trace_decoding.Decoder(folder)
        try:
            for batch in trace_decoding.batches(plan.to_read):
                read = read_batch(connection, schema, batch, decoder, batches)
                rows += [trace_file_row(row, loaded_at) for row in read]
        finally:
            decoder.close()
    insert_rows(connection, f"{schema}.trace_files", TABLES["trace_files"], rows)
    return len(plan.to_read)


def traces_unchanged(connection: duckdb.DuckDBPyConnection, schema: str, raw_dir: str) -> bool:
    """Whether the trace files below raw_dir are those read, with the same fingerprints."""
    listed = {trace.file_path: trace.file_fingerprint for trace in list_trace_files(raw_dir)}
    return loaded_traces(connection, schema) == listed
