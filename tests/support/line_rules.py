"""The line rules (models/staging/input_contract.md, "What a line is") written again in plain Python
from that statement alone, sharing no code with the readers (runlens/raw_logs/), so that a test can
hold every reader to them."""

from __future__ import annotations

import zlib
from typing import NamedTuple

BLANK_CHARACTERS = " \t\x0b\x0c\r"  # space, tab, VT, FF, CR: nothing else makes a line blank


class Line(NamedTuple):
    line_number: int
    text: str
    is_invalid_utf8: bool
    is_blank: bool


def escaped(data: bytes) -> str:
    """An invalid line's bytes as text: printable ASCII but `"`, `'` and `\\` as they are, every other
    byte as `\\xNN` (upper-case hex), which is DuckDB's blob-to-text cast."""
    return "".join(chr(byte) if 0x20 <= byte < 0x7F and byte not in b"\"'\\" else f"\\x{byte:02X}" for byte in data)


def expected_lines(data: bytes) -> list[Line]:
    """The lines of a file's (decompressed) bytes, by the line rules."""
    pieces = data.split(b"\n")
    if pieces[-1] == b"":  # the empty piece after a final LF (or the whole of an empty file)
        pieces.pop()
    lines = []
    for number, piece in enumerate(pieces, 1):
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            lines.append(Line(number, escaped(piece[:-1] if piece.endswith(b"\r") else piece), True, False))
            continue
        text = text.lstrip("\ufeff") if number == 1 else text
        text = text[:-1] if text.endswith("\r") else text
        lines.append(Line(number, text, False, text.strip(BLANK_CHARACTERS) == ""))
    return lines


def gzip_members(data: bytes) -> bytes:
    """The bytes of every member of a gzip file, one after the other."""
    members = b""
    while data:
        decompressor = zlib.decompressobj(wbits=31)
        members += decompressor.decompress(data) + decompressor.flush()
        data = decompressor.unused_data
    return members
