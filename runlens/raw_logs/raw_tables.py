"""The raw tables: what the reader of each engine writes and staging selects from (the source
`runlens_raw`, models/staging/_runlens_raw__sources.yml), the same on every engine.

`split_lines` is the line rules in Python (the PostgreSQL reader splits with it). The rules are
stated once, in models/staging/input_contract.md, "What a line is";
tests/engines/test_line_rules_on_every_reader.py holds this spelling of them and the other readers'
to that statement. Each table's rows and the incremental reading: docs/internals.md, "The raw tables".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from runlens.raw_logs.listing import LogFile

BLANKS = " \t\x0b\x0c\r"
BOM = "\ufeff"

# name: [(column, type)], the types in DuckDB's words (each reader maps them to its engine's)
TABLES = {
    "log_files": [
        ("file_path", "varchar"),
        ("absolute_path", "varchar"),
        ("size_bytes", "bigint"),
        ("modified_at", "timestamp"),
        ("is_gzip", "boolean"),
        ("file_fingerprint", "varchar"),
        ("read_error", "varchar"),
        ("loaded_at", "timestamp"),
    ],
    "log_lines": [
        ("file_path", "varchar"),
        ("file_fingerprint", "varchar"),
        ("line_number", "bigint"),
        ("text", "varchar"),
        ("is_invalid_utf8", "boolean"),
        ("is_blank", "boolean"),
    ],
    "collections": [
        ("collection", "varchar"),
        ("title", "varchar"),
        ("baseline_collection", "varchar"),
        ("design_url", "varchar"),
        ("results_url", "varchar"),
    ],
    "build_context": [
        ("raw_dir", "varchar"),
        ("build_started_at", "timestamp"),
        ("pinned_as_of", "timestamp"),
        ("reading_error", "varchar"),
    ],
    # the profiler traces below the raw folder (trace_listing.py, trace_reading.py)
    "trace_files": [
        ("file_path", "varchar"),
        ("absolute_path", "varchar"),
        ("size_bytes", "bigint"),
        ("modified_at", "timestamp"),
        ("is_gzip", "boolean"),
        ("file_fingerprint", "varchar"),
        ("schema_version", "bigint"),
        ("schema_kind", "varchar"),
        ("base_time_ns", "bigint"),
        ("rank", "bigint"),
        ("rank_source", "varchar"),
        ("world_size", "bigint"),
        ("distributed_backend", "varchar"),
        ("device_count", "bigint"),
        ("devices", "varchar"),
        ("event_count", "bigint"),
        ("started_at", "timestamp"),
        ("ended_at", "timestamp"),
        ("read_error", "varchar"),
        ("loaded_at", "timestamp"),
    ],
    "trace_events": [
        ("file_path", "varchar"),
        ("file_fingerprint", "varchar"),
        ("event_number", "bigint"),
        ("cat", "varchar"),
        ("name", "varchar"),
        ("ts", "double"),
        ("dur", "double"),
        ("pid", "varchar"),
        ("tid", "varchar"),
        ("stream", "bigint"),
        ("device", "bigint"),
        ("correlation", "bigint"),
        ("external_id", "bigint"),
    ],
    "last_build": [
        ("inputs", "varchar"),
        ("database_state", "varchar"),
        ("refreshes_since_vacuum", "bigint"),
    ],
}


def raw_schema(target_schema: str) -> str:
    """The schema (Spark: database) of the raw tables beside the target schema dbt builds into."""
    return f"{target_schema}_raw"


def trace_file_row(row: dict, loaded_at: datetime) -> tuple:
    """The trace_files row of a trace read now (row: trace_reading.file_row)."""
    row = {**row, "loaded_at": loaded_at}
    return tuple(row[column] for column, _ in TABLES["trace_files"])


def log_file_row(log_file: LogFile, read_errors: dict[str, str], loaded_at: datetime) -> tuple:
    """The log_files row of a file read now (read_errors: each file's read error, if it has one)."""
    row = {**log_file._asdict(), "read_error": read_errors.get(log_file.file_path), "loaded_at": loaded_at}
    return tuple(row[column] for column, _ in TABLES["log_files"])


@dataclass(frozen=True)
class ReadingPlan:
    """Which files a reading reads (new or changed, or all on a full reading) and which files'
    rows leave (changed, removed, or all)."""

    to_read: list[LogFile]
    to_forget: list[str]  # file paths whose rows leave


def plan_reading(listed: Iterable[LogFile], loaded: dict[str, str], full: bool = False) -> ReadingPlan:
    """The plan for the files listed now, given the fingerprint each loaded file was read with."""
    listed = list(listed)
    if full:
        return ReadingPlan(listed, sorted(loaded))
    now = {log_file.file_path: log_file.file_fingerprint for log_file in listed}
    to_read = [log_file for log_file in listed if loaded.get(log_file.file_path) != log_file.file_fingerprint]
    to_forget = sorted(path for path, fingerprint in loaded.items() if now.get(path) != fingerprint)
    return ReadingPlan(to_read, to_forget)


@dataclass(frozen=True)
class ReadSummary:
    files: int  # listed now
    read_files: int
    read_lines: int
    forgotten_files: int  # changed or removed since the last reading


class RawLine(NamedTuple):
    line_number: int
    text: str
    is_invalid_utf8: bool
    is_blank: bool


def split_lines(text: str, invalid_line_numbers: Iterable[int] = (), first_line_number: int = 1) -> Iterator[RawLine]:
    """The physical lines of a file's text (or of a piece of it that ends after a line break and
    starts at first_line_number), by the line rules (models/staging/input_contract.md, "What a line
    is"; tests/engines/test_line_rules_on_every_reader.py)."""
    invalid = set(invalid_line_numbers)
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    for offset, piece in enumerate(pieces):
        number = first_line_number + offset
        if number in invalid:
            yield RawLine(number, piece, True, False)
            continue
        line = piece.lstrip(BOM) if number == 1 else piece
        if line.endswith("\r"):
            line = line[:-1]
        yield RawLine(number, line, False, line.strip(BLANKS) == "")


def loaded_at_now() -> datetime:
    """When a reading begins, as naive UTC (every timestamp of the marts is)."""
    from datetime import UTC

    return datetime.now(UTC).replace(tzinfo=None)
