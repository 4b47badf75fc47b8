"""A log file's text, as the line rules (models/staging/input_contract.md, "What a line is") take it.

Each file is read whole (never through a glob, so names with `*`, `?`, `[` or `{` are safe);
a gzip file is decompressed, every member (appending with `gzip.open(path, "ab")` adds members),
and the bytes decoded before a fault are kept. Decoding is per line, so one bad byte spoils one
line, never a file: a line is valid when its bytes are valid UTF-8. An invalid line is replaced
by its escaped form, the text DuckDB gives its bytes cast from blob to text (`\\xNN` for every
byte but the printable ASCII other than `"`, `'` and `\\`, so `\\x0A` is always a newline) less
one trailing `\\x0D`, and its number is noted; the result is valid UTF-8 text.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

from runlens.raw_logs.listing import LogFile

UTF8_CHECK_BYTES = 16 * 1024  # text_with_escaped_lines checks UTF-8 in chunks of about this size
ESCAPES = {byte: f"\\x{byte:02X}" for byte in range(256) if not (0x20 <= byte < 0x7F and byte not in b"\"'\\")}


class LogText(NamedTuple):
    text: str | None  # None when nothing could be read
    invalid_line_numbers: list[int]
    read_error: str | None  # why the file could not be read in full


def read_gzip(path: str) -> tuple[bytes | None, str | None]:
    """(decompressed bytes, error) of every gzip member in the file; bytes before a fault are kept."""
    chunks = []
    try:
        with open(path, "rb") as handle:
            pending = handle.read()
    except OSError as error:
        return None, f"unreadable: {error.strerror}"
    try:
        while pending:
            decompressor = zlib.decompressobj(wbits=31)
            chunks.append(decompressor.decompress(pending))
            chunks.append(decompressor.flush())
            if not decompressor.eof:
                return b"".join(chunks), "truncated_gzip"
            pending = decompressor.unused_data
    except zlib.error as error:
        return b"".join(chunks), f"corrupt_gzip: {error}"
    return b"".join(chunks), None


def read_plain(path: str) -> tuple[bytes | None, str | None]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except OSError as error:
        return None, f"unreadable: {error.strerror}"


def escaped_line(line: bytes) -> bytes:
    """An invalid line's text: its bytes as DuckDB casts a blob to text, less one trailing CR."""
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("latin-1").translate(ESCAPES).encode("ascii")


def is_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def text_with_escaped_lines(data: bytes) -> tuple[bytes, list[int]]:
    """(UTF-8 bytes, numbers of the invalid lines): data with each line that is not valid UTF-8
    replaced by escaped_line. Checked in chunks of whole lines, a failing chunk line by line (a
    newline byte is never part of a multi-byte character)."""
    view, parts, invalid = memoryview(data), [], []
    copied, start, line_number = 0, 0, 1  # data[:copied] is in parts; line_number is the line at start
    while start < len(data):
        end = data.find(b"\n", start + UTF8_CHECK_BYTES) + 1 or len(data)
        chunk = data[start:end]
        if is_utf8(chunk):
            line_number += chunk.count(b"\n")
        else:
            for line in chunk.split(b"\n"):
                if not is_utf8(line):
                    parts += [view[copied:start], escaped_line(line)]
                    invalid.append(line_number)
                    copied = start + len(line)
                start += len(line) + 1
                line_number += 1
            line_number -= 1  # the piece after the chunk's last newline starts the next chunk
        start = end
    if not invalid:
        return data, []
    parts.append(view[copied:])
    return b"".join(parts), invalid


class LogBytes(NamedTuple):
    data: bytes | None  # UTF-8, invalid lines escaped; None when nothing could be read
    invalid_line_numbers: list[int]
    read_error: str | None


def read_log_bytes(log_file: LogFile) -> LogBytes:
    """The file's bytes as valid UTF-8, its invalid lines escaped, or why it could not be read."""
    if log_file.unread_reason is not None:
        return LogBytes(None, [], log_file.unread_reason)
    reader = read_gzip if log_file.is_gzip else read_plain
    content, error = reader(log_file.absolute_path)
    if content is None:
        return LogBytes(None, [], error)
    data, invalid = text_with_escaped_lines(content)
    return LogBytes(data, invalid, error)


def read_log_text(log_file: LogFile) -> LogText:
    """The file's text with its invalid lines escaped, or why it could not be read."""
    data, invalid, error = read_log_bytes(log_file)
    return LogText(None if data is None else data.decode("utf-8"), invalid, error)
