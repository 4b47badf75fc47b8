"""nvidia-smi CSV logs -> utilization samples, one per GPU and row.

What `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,power.draw --format=csv -l N`
writes: a header (`timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]`, left
out with `noheader`), then a row per GPU and tick (`2021/11/03 21:42:45.211, 0, 82 %, 31005 MiB,
250.12 W`; the units left out with `nounits`). Any subset and order of query fields: the ones the
contract reads are mapped (FIELDS), the rest ignored; `timestamp` and `index` are needed. A header
met again later (a restarted logger appending to the file) sets the columns from there on. The
times are the machine's local time: `--timezone` says its zone, as for text logs. The mapping, the
host a file name gives and a file without header: docs/importers.md, "Cluster GPU logs".

The samples belong to no run yet: the runner gives them one (sample_attribution.py).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from .common import Event, Options, Outcome, Reject, SampleLog, display_path
from .importer import Claimed, Claims, Importer, Source, Walk
from .text_log import parse_timezone

FORMAT = "nvidia_smi"
# query field -> (contract measurement, nvidia-smi's unit); every other field is ignored
FIELDS = {
    "utilization.gpu": ("gpu_utilization", "%"),
    "utilization.memory": ("gpu_memory_utilization", "%"),
    "memory.used": ("gpu_memory_used", "MiB"),
    "power.draw": ("gpu_power", "W"),
}
DEFAULT_UNITS = {"gpu_utilization": "%", "gpu_memory_utilization": "%", "gpu_memory_used": "MiB", "gpu_power": "W"}
# the columns of a file without header: the query of nvidia-smi's own example for logging
HEADERLESS = ("timestamp", "index", "utilization.gpu", "memory.used", "power.draw")
SUFFIXES = (".csv", ".log", ".txt", ".out")
HOST_MARK = ".nvidia-smi"  # `<host>.nvidia-smi.csv`: the file's GPUs are those of <host>
TIME = re.compile(r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?$")
HEADER_FIELD = re.compile(r"^(?P<name>[a-z_][a-z0-9_.]*)(?: \[(?P<unit>[^\]]*)\])?$")
VALUE = re.compile(r"^(?P<number>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?: (?P<unit>\S+))?$")
ZONE_NOTE = "local times read as UTC: no --timezone given"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split(",")]


def _header(line: str) -> list[tuple[str, str | None]] | None:
    """The header's fields as (name, unit in brackets); None when the line is no header."""
    fields = []
    for cell in _cells(line):
        match = HEADER_FIELD.match(cell)
        if not match:
            return None
        fields.append((match.group("name"), match.group("unit")))
    names = [name for name, _ in fields]
    return fields if "timestamp" in names and any(name in FIELDS or name == "index" for name in names) else None


def _first_line(path: Path) -> str | None:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as stream:
            for line in stream.read(64 * 1024).splitlines():
                if line.strip():
                    return line
    except OSError:
        return None
    return None


def looks_like_log(path: Path) -> bool:
    """For --format auto: a file whose first line is nvidia-smi's CSV header, or a row that starts
    with its timestamp (a file written with `noheader`)."""
    if path.suffix not in SUFFIXES:
        return False
    first = _first_line(path)
    if first is None:
        return False
    return _header(first) is not None or (TIME.match(_cells(first)[0]) is not None and len(_cells(first)) > 1)


def host_of(path: Path) -> str | None:
    """`node7.nvidia-smi.csv` -> `node7`; None when the name says no host."""
    stem, mark, _ = path.name.partition(HOST_MARK)
    return stem if mark and stem else None


def _time_us(text: str, zone) -> int:
    fraction = "." in text
    moment = datetime.strptime(text, "%Y/%m/%d %H:%M:%S.%f" if fraction else "%Y/%m/%d %H:%M:%S")
    delta = moment.replace(tzinfo=zone) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _value(cell: str, unit: str | None) -> tuple[float, str | None] | None:
    """(number, unit) of a cell; None for nvidia-smi's `[N/A]`, `[Not Supported]`, ... (absent)."""
    if cell.startswith("[") and cell.endswith("]") or cell in ("N/A", ""):
        return None
    match = VALUE.match(cell)
    if not match:
        raise ValueError(f"{cell!r} is no number")
    return float(match.group("number")), match.group("unit") or unit


def read_log(path: Path, options: Options) -> Outcome:
    """The samples of one nvidia-smi CSV log, its bad rows as rejects."""
    outcome = Outcome()
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        outcome.rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
        return outcome
    zone = parse_timezone(options.timezone)
    log = SampleLog(FORMAT, path, host_of(path))
    columns: list[tuple[str, str | None]] = [(name, None) for name in HEADERLESS]
    headerless, empty_rows = True, 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        header = _header(line)
        if header is not None:
            columns, headerless = header, False
            continue

        def bad(reason: str, number: int = number, line: str = line) -> None:
            outcome.rejects.append(Reject(FORMAT, shown, "bad_csv_row", f"line {number}: {reason}: {line[:160]!r}"))

        cells = _cells(line)
        if len(cells) != len(columns):
            bad(f"{len(cells)} field(s) where the {'assumed ' if headerless else ''}header has {len(columns)}")
            continue
        row = {name: (cell, unit) for (name, unit), cell in zip(columns, cells, strict=True)}
        if "timestamp" not in row or "index" not in row:
            bad("the header names no timestamp or no index column")
            continue
        try:
            if not TIME.match(row["timestamp"][0]):
                raise ValueError(f"{row['timestamp'][0]!r} is no nvidia-smi time (YYYY/MM/DD HH:MM:SS.mmm)")
            ts_us = _time_us(row["timestamp"][0], zone or UTC)
            if not row["index"][0].isdigit():
                raise ValueError(f"index {row['index'][0]!r} is no GPU index")
            measurements, units = {}, {}
            for name, (cell, unit) in row.items():
                if name not in FIELDS:
                    continue
                measurement, default_unit = FIELDS[name]
                found = _value(cell, unit)
                if found is None:
                    continue
                measurements[measurement] = found[0]
                if (found[1] or default_unit) != DEFAULT_UNITS[measurement]:
                    units[measurement] = found[1]
        except ValueError as error:
            bad(str(error))
            continue
        if not measurements:
            empty_rows += 1
            continue
        fields = {"gpu": int(row["index"][0]), "measurements": measurements, "source_line": number}
        if log.host:
            fields["host"] = log.host
        if units:
            fields["units"] = units
        log.samples.append(Event("sample", ts_us, shown, None if zone else ZONE_NOTE, fields))
    if empty_rows:
        outcome.notes.append(f"{shown}: {empty_rows} row(s) with no value the contract reads ([N/A], [Not Supported])")
    if headerless and log.samples:
        outcome.notes.append(f"{shown}: no header: read as --query-gpu={','.join(HEADERLESS)}")
    if log.samples:
        outcome.sample_logs.append(log)
    return outcome


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per nvidia-smi log, wherever it lies (in a run folder an earlier importer took,
    it belongs to that run: sample_attribution.py)."""
    return Claims(
        sources=[
            Source(IMPORTER, path, walk.base, [path])
            for path in walk.files
            if explicit and walk.path.is_file() or looks_like_log(path)
        ]
    )


def read(source: Source, options: Options) -> Outcome:
    return read_log(source.path, options)


IMPORTER = Importer(FORMAT, "nvidia_smi", "nvidia-smi", None, claim, read)
