"""A trace file's header and complete events, read as a stream: the file is never held whole.

The text (gzip decompressed) is read CHUNK_CHARS at a time into a sliding buffer; the top-level
object's keys are walked one by one, every value but `traceEvents` decoded whole (the header:
`schemaVersion`, `distributedInfo`, `deviceProperties`, `baseTimeNanoseconds`, ...; Kineto writes
some before the events and some after), and the `traceEvents` array one event at a time
(json.JSONDecoder.raw_decode over the buffer, which drops what was read). A value that does not
fit in LARGEST_VALUE_CHARS, bad JSON or a file cut short stops the reading with its reason; the
events read before it are kept (read_error says why the trace is not whole).

Of a key written twice in one event or value, the first counts (first_wins). An event is kept when
it is complete (`ph` `X`) with a category other than `Trace` (the profiler's own span) and numeric
`ts` and `dur`: the rows of the raw table trace_events.
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from runlens.raw_logs.listing import LogFile

CHUNK_CHARS = 1 << 20
LARGEST_VALUE_CHARS = 64 << 20  # an event or header value larger than this stops the reading


def first_wins(pairs: list) -> dict:
    """An object whose key is written twice keeps the first (as DuckDB's JSON functions do: trace_decoding.py)."""
    decoded = dict(pairs)
    return decoded if len(decoded) == len(pairs) else dict(reversed(pairs))


DECODER = json.JSONDecoder(object_pairs_hook=first_wins)
SPACE = re.compile(r"[ \t\r\n]*")
DELIMITER = re.compile(r"[ \t\r\n]*([,\]])[ \t\r\n]*")  # what follows an event of traceEvents
# a rank in the file name when the trace does not say it (distributedInfo): `rank-3`, `rank_3`,
# `rank3`, `worker3` (not `workers_3`)
RANK_IN_NAME = re.compile(r"(?:^|[^A-Za-z])(?:rank[-_]?|worker)(\d+)(?![A-Za-z])", re.IGNORECASE)
INTEGER_TEXT = re.compile(r"[ \t\r\n]*(-?[0-9]{1,19})[ \t\r\n]*")
CURRENT_CATEGORIES = {"cpu_op", "kernel", "cuda_runtime", "gpu_memcpy", "gpu_memset", "user_annotation"}
LEGACY_CATEGORIES = {"Operator", "Kernel", "Runtime", "Memcpy", "Memset"}


class TraceFormatError(ValueError):
    """The text is no trace, or stops being one; the message is the read error."""


@dataclass
class TraceHeader:
    """What the reading learnt of the trace besides its events (filled as the stream goes)."""

    keys: dict = field(default_factory=dict)  # the top-level values but traceEvents
    categories: set = field(default_factory=set)
    event_count: int = 0  # events kept
    first_ts: float | None = None  # microseconds, the trace's own clock
    last_end_ts: float | None = None
    read_error: str | None = None


class Buffer:
    """A sliding window over a text stream, from which JSON values are decoded one at a time."""

    def __init__(self, handle):
        self.handle = handle
        self.text = ""
        self.position = 0
        self.ended = False

    def fill(self) -> None:
        chunk = self.handle.read(CHUNK_CHARS)
        if not chunk:
            self.ended = True
            return
        self.text = self.text[self.position :] + chunk
        self.position = 0

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the text)."""
        while True:
            self.position = SPACE.match(self.text, self.position).end()
            if self.position < len(self.text) or self.ended:
                return self.text[self.position : self.position + 1]
            self.fill()

    def take(self, expected: str, where: str) -> None:
        found = self.peek()
        if found != expected:
            raise TraceFormatError(f"{'truncated' if found == '' else 'invalid_json'}: expected {expected!r} {where}")
        self.position += 1

    def value(self, where: str):
        """The next JSON value (a value that ends the buffer may go on in the text not read yet)."""
        self.peek()
        while True:
            try:
                decoded, end = DECODER.raw_decode(self.text, self.position)
                if end < len(self.text) or self.ended:
                    self.position = end
                    return decoded
            except json.JSONDecodeError as error:
                if self.ended:
                    cut = error.msg.startswith("Unterminated") or error.pos >= len(self.text.rstrip())
                    kind = "truncated" if cut else "invalid_json"
                    raise TraceFormatError(f"{kind}: {error.msg} {where}") from None
            if len(self.text) - self.position > LARGEST_VALUE_CHARS:
                raise TraceFormatError(f"invalid_json: a value {where} is larger than {LARGEST_VALUE_CHARS} characters")
            self.fill()


def open_text(log_file: LogFile):
    if log_file.is_gzip:
        return gzip.open(log_file.absolute_path, "rt", encoding="utf-8", errors="replace")
    return open(log_file.absolute_path, encoding="utf-8", errors="replace")


def read_trace(log_file: LogFile, header: TraceHeader) -> Iterator[tuple[int, dict]]:
    """Yield (number, event) of the trace's kept events (see the module's docstring), filling
    header as it goes;
    a fault is header.read_error, never raised."""
    if log_file.unread_reason is not None:
        header.read_error = log_file.unread_reason
        return
    try:
        with open_text(log_file) as handle:
            yield from walk(Buffer(handle), header)
    except TraceFormatError as error:
        header.read_error = str(error)
    except EOFError:
        header.read_error = "truncated_gzip"
    except (gzip.BadGzipFile, zlib.error) as error:
        header.read_error = f"corrupt_gzip: {error}"
    except OSError as error:
        header.read_error = f"unreadable: {error.strerror or error}"


def walk(buffer: Buffer, header: TraceHeader) -> Iterator[dict]:
    buffer.take("{", "at the start of the trace")
    if buffer.peek() == "}":
        raise TraceFormatError("not_a_trace: the object has no traceEvents")
    seen_events = False
    while True:
        key = buffer.value("at a top-level key")
        if not isinstance(key, str):
            raise TraceFormatError("invalid_json: a top-level key is no string")
        buffer.take(":", f"after the key {key!r}")
        if key == "traceEvents":
            seen_events = True
            yield from events(buffer, header)
        else:
            header.keys[key] = buffer.value(f"in the value of {key!r}")
        following = buffer.peek()
        if following == "}":
            break
        buffer.take(",", f"after the value of {key!r}")
    if not seen_events:
        raise TraceFormatError("not_a_trace: the object has no traceEvents")


def next_event(buffer: Buffer, number: int) -> tuple[object, bool]:
    """(the next event of traceEvents, whether the array ends after it), the buffer moved past the
    comma or bracket that follows. The usual case, an event and its delimiter whole in the
    buffer, is decoded in place; anything else (the buffer's end, bad JSON) by Buffer.value."""
    try:
        event, end = DECODER.raw_decode(buffer.text, buffer.position)
        delimiter = DELIMITER.match(buffer.text, end)
        if delimiter is not None:
            buffer.position = delimiter.end()
            return event, delimiter.group(1) == "]"
    except json.JSONDecodeError:
        pass
    event = buffer.value(f"in traceEvents after event {number}")
    following = buffer.peek()
    if following == "]":
        buffer.position += 1
        return event, True
    buffer.take(",", f"in traceEvents after event {number + 1}")
    return event, False


def events(buffer: Buffer, header: TraceHeader) -> Iterator[tuple[int, dict]]:
    """(number, event) of each kept event of traceEvents, numbered from 1 among all its events."""
    buffer.take("[", "at the start of traceEvents")
    if buffer.peek() == "]":
        buffer.position += 1
        return
    number, ended = 0, False
    while not ended:
        buffer.peek()
        event, ended = next_event(buffer, number)
        number += 1
        if kept(event):
            header.event_count += 1
            header.categories.add(event["cat"])
            start = float(event["ts"])
            end = start + float(event["dur"])
            if header.first_ts is None or start < header.first_ts:
                header.first_ts = start
            if header.last_end_ts is None or end > header.last_end_ts:
                header.last_end_ts = end
            yield number, event


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def kept(event) -> bool:
    return (
        isinstance(event, dict)
        and event.get("ph") == "X"
        and isinstance(event.get("cat"), str)
        and event["cat"] != "Trace"
        and is_number(event.get("ts"))
        and is_number(event.get("dur"))
    )


def as_integer(value) -> int | None:
    """An integer argument (a stream, a device, a correlation id) that a bigint holds, else None;
    `"7"` is 7 (ASCII digits, with blanks, tabs and line breaks around them)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and (digits := INTEGER_TEXT.fullmatch(value)):
        value = int(digits.group(1))
    if isinstance(value, int) and -(2**63) <= value < 2**63:
        return value
    return None


def as_text(value) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else json.dumps(value)


def event_row(number: int, event: dict) -> tuple:
    """The trace_events columns of a kept event, after file_path and file_fingerprint."""
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    external = args.get("External id", args.get("external id"))
    return (
        number,
        event["cat"],
        as_text(event.get("name")) or "",
        float(event["ts"]),
        float(event["dur"]),
        as_text(event.get("pid")),
        as_text(event.get("tid")),
        as_integer(args.get("stream")),
        as_integer(args.get("device")),
        as_integer(args.get("correlation")),
        as_integer(external),
    )


def schema_kind(categories: set) -> str:
    """`current` (cpu_op, kernel, cuda_runtime, ...), `2021` (Operator, Kernel, Runtime, ...) or `unknown`."""
    if categories & CURRENT_CATEGORIES:
        return "current"
    if categories & LEGACY_CATEGORIES:
        return "2021"
    return "unknown"


def rank_of(header: TraceHeader, file_path: str) -> tuple[int, str]:
    """(rank, where it came from): distributedInfo's rank, else one in the file name, else 0."""
    info = header.keys.get("distributedInfo")
    if isinstance(info, dict) and isinstance(info.get("rank"), int) and not isinstance(info["rank"], bool):
        return info["rank"], "distributed_info"
    found = RANK_IN_NAME.search(os.path.basename(file_path))
    if found:
        return int(found.group(1)), "file_name"
    return 0, "default"


def devices_summary(header: TraceHeader) -> tuple[int | None, str | None]:
    """(how many devices deviceProperties lists, their names: `2 x Tesla V100-SXM2-16GB`)."""
    devices = header.keys.get("deviceProperties")
    if not isinstance(devices, list):
        return None, None
    names = [str(device.get("name")) for device in devices if isinstance(device, dict) and device.get("name")]
    counted = {name: names.count(name) for name in sorted(set(names))}
    return len(devices), ", ".join(f"{count} x {name}" for name, count in counted.items()) or None


def at(base_ns: int, microseconds: float | None) -> datetime.datetime | None:
    """The UTC instant (naive) of a trace time: baseTimeNanoseconds plus microseconds."""
    if microseconds is None:
        return None
    seconds = base_ns / 1e9 + microseconds / 1e6
    try:
        return datetime.datetime.fromtimestamp(seconds, datetime.UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


def file_row(log_file: LogFile, header: TraceHeader) -> dict:
    """The trace_files columns of a trace read whole (or as far as it could be)."""
    keys = header.keys
    base = keys.get("baseTimeNanoseconds")
    base_ns = base if isinstance(base, int) and not isinstance(base, bool) else 0
    info = keys.get("distributedInfo") if isinstance(keys.get("distributedInfo"), dict) else {}
    world_size = info.get("world_size") if isinstance(info.get("world_size"), int) else None
    rank, rank_source = rank_of(header, log_file.file_path)
    device_count, devices = devices_summary(header)
    version = keys.get("schemaVersion")
    return {
        **log_file._asdict(),
        "schema_version": version if isinstance(version, int) and not isinstance(version, bool) else None,
        "schema_kind": schema_kind(header.categories),
        "base_time_ns": base_ns,
        "rank": rank,
        "rank_source": rank_source,
        "world_size": world_size,
        "distributed_backend": as_text(info.get("backend")),
        "device_count": device_count,
        "devices": devices,
        "event_count": header.event_count,
        "started_at": at(base_ns, header.first_ts),
        "ended_at": at(base_ns, header.last_end_ts),
        "read_error": header.read_error,
    }
