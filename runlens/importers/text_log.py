"""Line-oriented training logs (fairseq by default) -> one run per file.

Each line that starts with a timestamp is read; the patterns below (Python regular expressions,
each replaceable with `--text-pattern NAME=REGEX`) pick the markers out of it:

| name         | default (fairseq)                                             | gives               |
|--------------|---------------------------------------------------------------|---------------------|
| `timestamp`  | `^(?P<ts>\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}:\\d{2}([.,]\\d+)?)`| the line's time     |
| `checkpoint` | `Saved checkpoint \\S+ \\(epoch (?P<epoch>\\d+) @ (?P<step>\\d+) updates` | checkpoint     |
| `epoch_end`  | `end of epoch (?P<epoch>\\d+)`                                 | epoch_end           |
| `epoch_step` | `epoch (?P<epoch>\\d+) @ (?P<step>\\d+) updates`                | the epoch's step    |
| `run_end`    | `done training`                                               | run_end (completed) |
| `task`       | `'task': \\{'_name': '(?P<task>[^']+)'`                        | the task            |

Such logs carry local times without a zone: `--timezone` names it (an IANA name such as
`Europe/Berlin`, or an offset such as `+02:00`). Without it the times are read as UTC and every
event says so. Times with whole seconds only are approximate (to the second). A log without a
`run_end` line gives a run without run_end (incomplete), last heard from at its last line.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, format_ts

FORMAT = "text"
DEFAULT_PATTERNS = {
    "timestamp": r"^(?P<ts>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)",
    "checkpoint": r"Saved checkpoint \S+ \(epoch (?P<epoch>\d+) @ (?P<step>\d+) updates",
    "epoch_end": r"end of epoch (?P<epoch>\d+)",
    "epoch_step": r"epoch (?P<epoch>\d+) @ (?P<step>\d+) updates",
    "run_end": r"done training",
    "task": r"'task': \{'_name': '(?P<task>[^']+)'",
}
SUFFIXES = (".log", ".txt", ".out")
_OFFSET = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


def parse_timezone(name: str | None) -> tzinfo | None:
    """An IANA zone name, UTC/Z, or a fixed offset like +02:00; None when not given."""
    if not name:
        return None
    if name.upper() in ("UTC", "Z"):
        return UTC
    match = _OFFSET.match(name)
    if match:
        sign = 1 if match.group(1) == "+" else -1
        return timezone(sign * timedelta(hours=int(match.group(2)), minutes=int(match.group(3))))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"unknown time zone {name!r}: use an IANA name such as Europe/Berlin, or +02:00") from error


def patterns(options: Options) -> dict[str, re.Pattern]:
    merged = {**DEFAULT_PATTERNS, **options.text_patterns}
    return {name: re.compile(text) for name, text in merged.items()}


def _parse_ts(text: str, zone: tzinfo) -> tuple[int, bool]:
    """(microseconds since the epoch, has sub-second precision)."""
    text = text.replace(",", ".").replace("T", " ")
    fraction = "." in text
    moment = datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f" if fraction else "%Y-%m-%d %H:%M:%S")
    aware = moment.replace(tzinfo=zone)
    delta = aware - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds, fraction


def looks_like_log(path: Path, options: Options) -> bool:
    """For --format auto: a *.log/.txt/.out file whose first lines carry timestamps and a marker."""
    if path.suffix not in SUFFIXES:
        return False
    compiled = patterns(options)
    try:
        with path.open("r", encoding="utf-8", errors="replace") as stream:
            head = stream.read(256 * 1024)
    except OSError:
        return False
    lines = head.splitlines()
    timed = any(compiled["timestamp"].search(line) for line in lines[:50])
    marked = any(compiled[name].search(head) for name in ("checkpoint", "epoch_end", "run_end"))
    return timed and marked


def import_log(path: Path, root: Path, options: Options) -> Outcome:
    outcome = Outcome()
    shown = display_path(path)
    compiled = patterns(options)
    zone = parse_timezone(options.timezone)
    zone_note = None if zone else "local times read as UTC: no --timezone given"
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        outcome.rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
        return outcome

    folder = path.parent.resolve().name or "text"
    run_id = f"{folder}/{path.stem}"
    run = Run(run_id=run_id, source_format=FORMAT, collection=options.collection or folder, task=UNSPECIFIED_TASK)
    first_us = last_us = first_line = None
    ended = None
    task_source = "default"
    epoch_steps: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stamp = compiled["timestamp"].search(line)
        if not stamp:
            continue
        try:
            us, precise = _parse_ts(stamp.group("ts"), zone or UTC)
        except ValueError:
            continue

        def reason(what: str, precise: bool = precise) -> str | None:
            parts = [] if precise else [f"{what} from a log line with whole-second times"]
            if zone_note:
                parts.append(zone_note)
            return "; ".join(parts) or None

        if first_us is None:
            first_us, first_line = us, number
            run.add(
                "run_start",
                us,
                shown,
                "run_start taken from the first log line: set-up before logging is not seen"
                + (f"; {zone_note}" if zone_note else ""),
            )
        last_us = us
        if task_source == "default" and (found := compiled["task"].search(line)):
            run.task, task_source = found.group("task"), "pattern:task"
        if found := compiled["epoch_step"].search(line):
            epoch_steps[int(found.group("epoch"))] = int(found.group("step"))
        if found := compiled["checkpoint"].search(line):
            fields = {"step": int(found.group("step"))}
            run.add("checkpoint", us, shown, reason("checkpoint"), source_line=number, **fields)
        if found := compiled["epoch_end"].search(line):
            epoch = int(found.group("epoch"))
            fields = {"epoch": epoch}
            if epoch in epoch_steps:
                fields["step"] = epoch_steps[epoch]
            run.add("epoch_end", us, shown, reason("epoch_end"), source_line=number, **fields)
        if ended is None and compiled["run_end"].search(line):
            ended = (us, number, reason("run_end"))
    if first_us is None:
        outcome.rejects.append(Reject(FORMAT, shown, "no_timestamps", "no line matches the timestamp pattern"))
        return outcome
    if options.task:
        run.task, task_source = options.task, "option"
    run.run_fields = {
        "source_run_id": shown,
        "source_status": "run_end line" if ended else None,
        "framework": "text",
        "task_source": task_source,
        "source_line": first_line,
    }
    if ended:
        run.add("run_end", ended[0], shown, ended[2], status="completed", source_line=ended[1])
    else:
        run.run_fields["last_heard_from"] = format_ts(last_us)
        outcome.notes.append(
            f"text log {shown}: no run_end line, imported as incomplete (last line {format_ts(last_us)})"
        )
    outcome.runs.append(run)
    return outcome
