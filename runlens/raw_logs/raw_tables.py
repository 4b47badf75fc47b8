"""The raw tables: what the reader of each engine writes and staging selects from (the source
`runlens_raw`, models/staging/_runlens_raw__sources.yml), the same on every engine.

- `log_files`: one row per log file below the raw folder now (listing.py), with the error that
  kept it from being read in full, and when it was read (`loaded_at`).
- `log_lines`: one row per physical line of those files (the line rules below), its text with an
  invalid UTF-8 line in its escaped form (reading.py).
- `collections`: the rows of the folder's collections file (folder_metadata.py).
- `build_context`: one row: the raw folder, when this reading began (`build_started_at`, the
  time every row a build writes carries), the pinned as-of time (as_of.py), if any, and, when the
  folder or its metadata could not be used, the one line that says what to do (`reading_error`:
  stg_build_context then stops the build with it; the other tables are left as they were).
- `last_build`: what the last `runlens build` that finished over these tables was compiled from
  (runlens/dbt_build.py); every reading empties it, and that build writes it when it succeeds, so
  a build of the same project over a folder that has not changed can tell there is nothing to do;
  and how many plan refreshes since DuckDB last compacted the tables (runlens/dbt_build.py,
  VACUUM_EVERY).

Reading is incremental by file: a file whose fingerprint (`<size>:<mtime in ns>`) is unchanged is
not read again, a new or changed file is read whole, a removed one's rows leave (plan_reading).

The line rules (input_contract.md, "Lines"), which each engine's reader states in its own SQL
and `split_lines` states here for the loaders that split in Python and for the tests:
- a file's text is split on LF; the empty piece after a final LF is not a line;
- a valid UTF-8 line loses one trailing CR, and line 1 its leading byte order marks;
- a valid line of only space, tab, VT, FF and CR is blank;
- an invalid line's text is its escaped form, as it is.
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
    "last_build": [
        ("inputs", "varchar"),
        ("database_state", "varchar"),
        ("refreshes_since_vacuum", "bigint"),
    ],
}


def raw_schema(target_schema: str) -> str:
    """The schema (Spark: database) of the raw tables beside the target schema dbt builds into."""
    return f"{target_schema}_raw"


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
    starts at first_line_number), by the line rules."""
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
