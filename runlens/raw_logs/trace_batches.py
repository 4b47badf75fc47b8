"""A trace's events written as CSV files of at most BATCH_EVENTS rows each (the trace_events
columns, raw_tables.TABLES), which every engine's reader loads into trace_events: DuckDB by
read_csv (duckdb_traces.py), PostgreSQL by COPY (postgres_reader.py), Spark by its CSV reader
(spark_reader.py). The trace is read as a stream (trace_reading.py), so no more than one event is
held here: a trace of hundreds of MB costs disk for one batch, not memory.

One format for the three engines: RFC 4180 (every text field quoted, a quote doubled, a line break
inside quotes kept), a NULL an unquoted empty field (so the empty text `""` stays text), numbers as
Python writes them (a double's shortest text, which reads back exact; `inf`, `-inf`, `nan`), UTF-8,
a lone surrogate (a JSON `\\ud800`) written as the text of its escape. PostgreSQL text cannot hold
NUL: its reader asks for each NUL as the six characters `\\u0000`, as in its log lines
(input_contract.md).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterator

from runlens.raw_logs.listing import LogFile
from runlens.raw_logs.trace_reading import TraceHeader, event_row, read_trace

BATCH_EVENTS = 200_000
NUL_TEXT = "\\u0000"  # what a NUL in a text becomes where the engine's text cannot hold one


class Null:
    """NULL for csv.writer's QUOTE_NONNUMERIC, which quotes every field that is no number (None
    too, as `""`, the empty text): a number to it (the number protocol), so left unquoted, and
    written as nothing."""

    def __float__(self) -> float:
        return math.nan

    def __str__(self) -> str:
        return ""


NULL = Null()


def csv_row(row: tuple, nul_as_text: bool) -> tuple:
    """The values of a row as EventBatches writes them: NULL for None; each NUL as NUL_TEXT when asked."""
    if nul_as_text:
        return tuple(NULL if value is None else without_nul(value) for value in row)
    return tuple(NULL if value is None else value for value in row)


def without_nul(value):
    """A text with each NUL as NUL_TEXT; any other value as it is."""
    return value.replace("\x00", NUL_TEXT) if isinstance(value, str) and "\x00" in value else value


class EventBatches:
    """Writes traces' events into CSV files in folder, each file named by a counter, so a reader may
    load each batch as it comes or gather several and load them together."""

    def __init__(self, folder: str, batch_events: int | None = None, *, nul_as_text: bool = False):
        self.folder = folder
        self.batch_events = batch_events or BATCH_EVENTS
        self.nul_as_text = nul_as_text
        self.written = 0  # files written so far (their names' counter)

    def new_file(self) -> tuple[str, object]:
        self.written += 1
        path = os.path.join(self.folder, f"events-{self.written:06d}.csv")
        return path, open(path, "w", newline="", encoding="utf-8", errors="backslashreplace")

    def of(self, trace: LogFile, header: TraceHeader) -> Iterator[tuple[str, int]]:
        """(path, events) of each CSV file of the trace's kept events, yielded once written and
        closed, none for a trace without events; header filled as trace_reading.read_trace fills it
        (whole once the iterator is exhausted). The caller loads each file and may remove it."""
        path, handle, pending = None, None, 0
        try:
            for number, event in read_trace(trace, header):
                if handle is None:
                    path, handle = self.new_file()
                    writer = csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
                row = (trace.file_path, trace.file_fingerprint, *event_row(number, event))
                writer.writerow(csv_row(row, self.nul_as_text))
                pending += 1
                if pending == self.batch_events:
                    handle.close()
                    handle = None
                    yield path, pending
                    pending = 0
        finally:
            if handle is not None:
                handle.close()
        if pending:
            yield path, pending
