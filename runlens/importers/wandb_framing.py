"""The framing of a W&B run file (`run-<id>.wandb`): LevelDB's log format, W&B's header and checksum.

`RecordReader` reads a file block by block and yields its records; it stops at the first fault
and keeps why in `fault`. The format, byte by byte, and the faults: docs/importers.md,
"W&B: the run file's framing".
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

IDENT = b":W&B"
MAGIC = 0xBEE1
VERSION = 0
HEADER = struct.Struct("<4sHB")  # 7 bytes
CHUNK = struct.Struct("<IHB")  # 7 bytes: checksum, length, type
BLOCK = 32 * 1024
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
TYPE_NAMES = {FULL: "FULL", FIRST: "FIRST", MIDDLE: "MIDDLE", LAST: "LAST"}


@dataclass(frozen=True)
class Fault:
    """Why reading stopped before the end: a reject reason of common.REJECT_REASONS, and details."""

    reason: str
    detail: str


def checksum(chunk_type: int, data: bytes) -> int:
    """W&B's chunk checksum: CRC-32 (IEEE) over the type byte and the data, unmasked."""
    return zlib.crc32(data, zlib.crc32(bytes([chunk_type])))


class RecordReader:
    """The records of one W&B run file, in order: iterate for (offset of the first chunk, data)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.fault: Fault | None = None
        self.records = 0

    @classmethod
    def records_of(cls, path: Path) -> tuple[list[bytes], Fault | None]:
        """Every record of the file at path, and the fault that stopped the reading, if any."""
        try:
            with path.open("rb") as stream:
                reader = cls(stream)
                return [data for _, data in reader], reader.fault
        except OSError as error:
            return [], Fault("unreadable_wandb_file", f"cannot read: {error.strerror or error}")

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        block = self.stream.read(BLOCK)
        if len(block) < HEADER.size:
            self._stop("unreadable_wandb_file", f"{len(block)} bytes: shorter than the 7-byte W&B header")
            return
        ident, magic, version = HEADER.unpack_from(block, 0)
        if ident != IDENT or magic != MAGIC:
            self._stop("unreadable_wandb_file", f"not a W&B run file: it starts {block[:7]!r}")
            return
        if version != VERSION:
            self._stop("unreadable_wandb_file", f"W&B file version {version}: this reader knows version {VERSION}")
            return
        start, pos = 0, HEADER.size  # the block's offset in the file, the position in the block
        pending: list[bytes] = []  # the chunks so far of a record begun with FIRST
        pending_at = 0
        while True:
            if BLOCK - pos < CHUNK.size or pos >= len(block):  # the block's zero trailer, or its end
                if len(block) < BLOCK:  # that was the file's last block
                    break
                start, pos = start + BLOCK, 0
                block = self.stream.read(BLOCK)
                if not block:
                    break
                continue
            at = start + pos
            if len(block) - pos < CHUNK.size:
                self._stop("truncated_record", f"the file ends inside a chunk header at byte {at}")
                return
            crc, length, chunk_type = CHUNK.unpack_from(block, pos)
            if crc == 0 and length == 0 and chunk_type == 0:
                if pending:
                    self._stop("corrupt_record", f"a zeroed chunk header inside a record at byte {at}")
                    return
                pos = BLOCK  # padding: the rest of the block is unused
                continue
            name = TYPE_NAMES.get(chunk_type)
            if name is None:
                self._stop("corrupt_record", f"unknown chunk type {chunk_type} at byte {at}")
                return
            end = pos + CHUNK.size + length
            if end > BLOCK:
                self._stop("corrupt_record", f"a {length}-byte {name} chunk at byte {at} runs past its block")
                return
            if end > len(block):
                self._stop("truncated_record", f"the file ends inside a {length}-byte {name} chunk at byte {at}")
                return
            data = block[pos + CHUNK.size : end]
            if checksum(chunk_type, data) != crc:
                self._stop("corrupt_record", f"checksum mismatch in the {name} chunk at byte {at}")
                return
            if pending and chunk_type in (FULL, FIRST) or not pending and chunk_type in (MIDDLE, LAST):
                where = "inside a record" if pending else "without a FIRST"
                self._stop("corrupt_record", f"a {name} chunk {where} at byte {at}")
                return
            pos = end
            if chunk_type == FULL:
                self.records += 1
                yield at, data
            elif chunk_type == FIRST:
                pending, pending_at = [data], at
            else:
                pending.append(data)
                if chunk_type == LAST:
                    self.records += 1
                    yield pending_at, b"".join(pending)
                    pending = []
        if pending:
            self._stop("truncated_record", f"the file ends inside the record that starts at byte {pending_at}")

    def _stop(self, reason: str, detail: str) -> None:
        self.fault = Fault(reason, f"{detail} ({self.records} good record(s) before it)")
