"""A W&B run file (`.wandb`) framed by the tests themselves: LevelDB's log format, written from its
description independently of runlens' reader (runlens/importers/wandb_framing.py), which the W&B
importer tests read back."""

from __future__ import annotations

import struct
import zlib

from runlens.importers.wandb_framing import BLOCK


def frame(payloads: list[bytes]) -> bytes:
    """A W&B run file written here from LevelDB's log format description, independently of the reader."""
    data = bytearray(b":W&B" + struct.pack("<HB", 0xBEE1, 0))
    for payload in payloads:
        rest, first = payload, True
        while True:
            left = BLOCK - len(data) % BLOCK
            if left < 7:
                data += bytes(left)
                continue
            piece, rest = rest[: left - 7], rest[left - 7 :]
            kind = (1 if first else 4) if not rest else (2 if first else 3)
            crc = zlib.crc32(bytes([kind]) + piece)
            data += struct.pack("<IHB", crc, len(piece), kind) + piece
            first = False
            if not rest:
                break
    return bytes(data)
