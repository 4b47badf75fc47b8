"""Which files DuckDB reads itself, and handing the others' text to it in pieces it reads.

DuckDB reads a plain file itself (`read_blob`, one file per thread at a time) when it can take
the file whole: not gzip (its text readers cannot decompress), a regular file this user may read,
no larger than CHUNK_BYTES (so one value never holds more than a chunk), and a path without the
characters DuckDB would read as a glob pattern. stg_log_lines then decodes it, and only a file
that is not valid UTF-8 comes back to Python (reading.escaped_text, on the bytes DuckDB read).
The plugin's listing marks every file so (reads_natively), and only the others are handed to
stage_texts, which checks again (a file DuckDB can read by now is handed back as native).
RUNLENS_READER=plugin sends every file the other way (tests compare the two).

Every other file is read here once (reading.py: decompressed, invalid lines escaped) and written,
as valid UTF-8, into chunk files of about CHUNK_BYTES under a scratch folder, each cut just after a
line break; the model reads the chunks with `read_text` and numbers their lines from each chunk's
first line number. A file with no bytes gets no chunk. Whatever the size of the logs, at most one
file's bytes are held here, and one chunk or file per thread in DuckDB. The chunks are deleted
when the model has run (remove_staged_texts); a build that died leaves its scratch folder behind,
which the next one removes (its process is gone).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from runlens.raw_logs.reading import UNREAD_REASONS, read_log_bytes

CHUNK_BYTES = 32 * 1024 * 1024
SCRATCH_PREFIX = "runlens-texts-"
# what DuckDB's file readers take as a glob pattern (or its escape) in a path
GLOB_CHARACTERS = frozenset("*?[]{}\\")


def chunk_bytes(environ: Mapping[str, str] = os.environ) -> int:
    """CHUNK_BYTES, or RUNLENS_CHUNK_BYTES (tests set it small, so every file is cut many times)."""
    return int(environ.get("RUNLENS_CHUNK_BYTES") or CHUNK_BYTES)


def native_reads(environ: Mapping[str, str] = os.environ) -> Callable[[dict], bool]:
    """A test of whether DuckDB reads a file (absolute_path, file_fingerprint, size_bytes) itself;
    always false with RUNLENS_READER=plugin."""
    if environ.get("RUNLENS_READER", "engine") == "plugin":
        return lambda file: False
    largest = chunk_bytes(environ)

    def reads_natively(file: dict) -> bool:
        path = file["absolute_path"]
        return (
            not path.endswith(".gz")
            and file["file_fingerprint"] not in UNREAD_REASONS
            and (file.get("size_bytes") or 0) <= largest
            and GLOB_CHARACTERS.isdisjoint(path)
            and os.access(path, os.R_OK)
        )

    return reads_natively


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _remove_abandoned_scratch() -> None:
    """Scratch folders of builds whose process has died."""
    for folder in Path(tempfile.gettempdir()).glob(SCRATCH_PREFIX + "*"):
        pid = folder.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _is_running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def chunks(data: bytes, size: int):
    """(first line number, bytes) of consecutive pieces of data, each but the last ending in a line
    break (so no line is cut), of about size bytes each."""
    start, line_number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start + size - 1) + 1 or len(data)
        yield line_number, data[start:end]
        line_number += data.count(b"\n", start, end)
        start = end


def stage_texts(files: list[dict]) -> list[dict]:
    """Hand the files (absolute_path, file_fingerprint, size_bytes) over: one entry with is_native
    true for a file DuckDB reads itself (native_reads); for any other, its text read and written
    in chunk files, one entry per chunk: absolute_path, text_path, first_line_number,
    invalid_line_numbers (those of the chunk) and read_error, is_native false (a file without bytes
    gets one entry with text_path NULL)."""
    _remove_abandoned_scratch()
    reads_natively = native_reads()
    folder = None
    staged = []
    for number, file in enumerate(files):
        if reads_natively(file):
            staged.append({**_entry(file, None, 1, [], None), "is_native": True})
            continue
        data, invalid, error = read_log_bytes(file["absolute_path"], file["file_fingerprint"])
        pieces = list(chunks(data, chunk_bytes())) if data else []
        if not pieces:
            staged.append(_entry(file, None, 1, [], error))
        for piece_number, (first_line, piece) in enumerate(pieces):
            folder = folder or Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
            text_path = folder / f"{number}-{piece_number}.txt"
            text_path.write_bytes(piece)
            last_line = first_line + piece.count(b"\n")
            in_piece = [line for line in invalid if first_line <= line <= last_line]
            staged.append(_entry(file, str(text_path), first_line, in_piece, error))
    return staged


def _entry(file: dict, text_path: str | None, first_line: int, invalid: list[int], error: str | None) -> dict:
    return {
        "absolute_path": file["absolute_path"],
        "text_path": text_path,
        "first_line_number": first_line,
        "invalid_line_numbers": invalid,
        "read_error": error,
        "is_native": False,
    }


def remove_staged_texts(text_paths: list[str] | None) -> int:
    """Delete the scratch folders that hold these chunk files; returns how many were removed."""
    folders = {Path(path).parent for path in text_paths or [] if path}
    for folder in folders:
        if folder.name.startswith(SCRATCH_PREFIX) and folder.parent == Path(tempfile.gettempdir()):
            with contextlib.suppress(OSError):
                shutil.rmtree(folder)
    return len(folders)
