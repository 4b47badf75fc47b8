"""Which files DuckDB reads itself, and the pieces the others are handed to it in.

DuckDB reads a plain file itself (`read_blob`, one file per thread at a time) when it can take
the file whole: not gzip (its text readers cannot decompress), a regular file this user may read,
no larger than PIECE_BYTES (so one value never holds more than a chunk), and a path without the
characters DuckDB would read as a glob pattern. Only a file that is not valid UTF-8 then comes
back to Python. Every other file is read in Python (reading.py: decompressed, invalid lines
escaped) and handed to DuckDB as text a piece of about PIECE_BYTES at a time, each cut just after
a line break (duckdb_reader.py). RUNLENS_READER=python sends every file the second way (tests
compare the two).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from runlens.raw_logs.listing import LogFile

PIECE_BYTES = 32 * 1024 * 1024  # the most text DuckDB is handed in one value
# what DuckDB's file readers take as a glob pattern (or its escape) in a path
GLOB_CHARACTERS = frozenset("*?[]{}\\")


def chunk_bytes(environ: Mapping[str, str] = os.environ) -> int:
    """PIECE_BYTES, or RUNLENS_CHUNK_BYTES (tests set it small, so every file is cut many times)."""
    return int(environ.get("RUNLENS_CHUNK_BYTES") or PIECE_BYTES)


def native_reads(environ: Mapping[str, str] = os.environ) -> Callable[[LogFile], bool]:
    """A test of whether DuckDB reads a listed file itself; always false with RUNLENS_READER=python."""
    if environ.get("RUNLENS_READER", "engine") == "python":
        return lambda file: False
    largest = chunk_bytes(environ)

    def reads_natively(file: LogFile) -> bool:
        path = file.absolute_path
        return (
            not file.is_gzip
            and file.unread_reason is None
            and (file.size_bytes or 0) <= largest
            and GLOB_CHARACTERS.isdisjoint(path)
            and os.access(path, os.R_OK)
        )

    return reads_natively


def chunks(data: bytes, size: int):
    """(first line number, bytes) of consecutive pieces of data, each but the last ending in a line
    break (so no line is cut), of about size bytes each."""
    start, line_number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start + size - 1) + 1 or len(data)
        yield line_number, data[start:end]
        line_number += data.count(b"\n", start, end)
        start = end
