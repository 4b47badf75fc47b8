"""Which files below the raw folder are profiler traces (PyTorch's Kineto traces, the Chrome trace
format), and each one's identity: docs/internals.md, "Which files are traces".

A trace is a `*.pt.trace.json` or `*.pt.trace.json.gz` file (what `tensorboard_trace_handler` and
Lightning's and accelerate's profilers write), or any other `*.json` or `*.json.gz` file whose text
opens a JSON object that names the key `traceEvents` among its top-level keys within its first
HEAD_BYTES (HTA's and Chrome's `trace.json`, `rank-0.json.gz`). Names starting with `_` or `.` are
ignored, as for logs; the identity is a log file's (listing.describe: `<size>:<mtime in ns>`).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib

from runlens.raw_logs.listing import RAW_DIR_VARIABLE, TRACE_SUFFIXES, LogFile, check_raw_dir, describe, find_paths

JSON_SUFFIXES = (".json", ".json.gz")
HEAD_BYTES = 1 << 20  # how much of a `*.json` file is read to find its `traceEvents` key
DECODER = json.JSONDecoder()


def is_trace_name(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES)


def head_text(path: str) -> str:
    """The first HEAD_BYTES of the file's text (decompressed), as far as it decodes."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except (OSError, EOFError, zlib.error):
        return ""
    return head.decode("utf-8", errors="replace")


def names_trace_events(text: str) -> bool:
    """Whether text opens a JSON object one of whose top-level keys, before the text ends, is
    `traceEvents` (each value before it skipped whole)."""
    position = len(text) - len(text.lstrip())
    if not text[position : position + 1] == "{":
        return False
    position += 1
    while True:
        position = skip_space(text, position)
        if text[position : position + 1] != '"':
            return False
        try:
            key, position = DECODER.raw_decode(text, position)
            position = skip_space(text, position)
            if key == "traceEvents":
                return text[position : position + 1] == ":"
            if text[position : position + 1] != ":":
                return False
            _, position = DECODER.raw_decode(text, skip_space(text, position + 1))
        except json.JSONDecodeError:
            return False
        position = skip_space(text, position)
        if text[position : position + 1] != ",":
            return False
        position += 1


def skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def is_trace_file(path: str) -> bool:
    name = os.path.basename(path)
    if is_trace_name(name):
        return True
    return name.endswith(JSON_SUFFIXES) and names_trace_events(head_text(path))


def find_trace_paths(raw_dir: str, given_as: str = RAW_DIR_VARIABLE):
    """Yield the absolute paths of the trace files below raw_dir (absolute), in a stable order."""
    for path in find_paths(raw_dir, JSON_SUFFIXES, given_as):
        if is_trace_file(path):
            yield path


def list_trace_files(raw_dir: str, given_as: str = RAW_DIR_VARIABLE) -> list[LogFile]:
    """Every trace file below raw_dir; raises RawFolderError (check_raw_dir) when that is no readable folder."""
    raw_dir = check_raw_dir(raw_dir, given_as)
    return [describe(raw_dir, path) for path in find_trace_paths(raw_dir, given_as)]


def has_trace_files(raw_dir: str, given_as: str = RAW_DIR_VARIABLE) -> bool:
    """Whether any trace lies below the raw folder (checked as check_raw_dir does); stops at the first."""
    return next(find_trace_paths(check_raw_dir(raw_dir, given_as), given_as), None) is not None
