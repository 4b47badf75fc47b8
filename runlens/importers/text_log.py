"""Line-oriented training logs (fairseq by default) -> one run per file.

Each line that starts with a timestamp is read, and named patterns (each replaceable with
`--text-pattern NAME=REGEX`) pick the markers out of it. The patterns and their fairseq defaults,
the config dump, the profile of save times and the time zone: docs/importers.md, "Text logs".
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, format_ts
from .config_dump import ConfigDump, parse_config_dump

FORMAT = "text"
DEFAULT_PATTERNS = {
    "timestamp": r"^(?P<ts>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)",
    "checkpoint": r"[Ss]aved checkpoint \S+ \(epoch (?P<epoch>\d+) @ (?P<step>\d+) updates",
    "epoch_end": r"end of epoch (?P<epoch>\d+)",
    "epoch_step": r"epoch (?P<epoch>\d+) @ (?P<step>\d+) updates",
    "train_start": r"begin training epoch \d+",
    "restored": r"[Ll]oaded checkpoint \S+ \(epoch \d+ @ (?P<step>\d+) updates",
    "run_end": r"done training",
    "task": r"'task': \{'_name': '(?P<task>[^']+)'",
    "config": r"\| fairseq_cli\.train \| (?P<config>Namespace\(.*|\{'.*)$",
    "save_seconds": r"[Ss]aved checkpoint .*\(writing took (?P<seconds>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) seconds\)",
}
SAVE_SECTION = "checkpoint_save"
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
    first_us = last_us = first_line = last_line = None
    first_precise = last_precise = False
    ended = None
    task_source = "default"
    epoch_steps: dict[int, int] = {}
    training, restored_step = False, None  # a train_start written; the step a loaded checkpoint names
    dump: tuple[int, str, ConfigDump] | None = None  # (line, text, parsed): the first config dump
    other_dumps: list[int] = []  # lines of later dumps that state another config
    saves: list[float] = []  # the seconds each save line says writing took
    for number, line in enumerate(text.splitlines(), start=1):
        if found := compiled["config"].search(line):
            stated = (found.groupdict().get("config") or found.group(0)).strip()
            if dump is None:
                dump = (number, stated, parse_config_dump(stated))
            elif stated != dump[1]:
                other_dumps.append(number)
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
            first_us, first_line, first_precise = us, number, precise
            run.add(
                "run_start",
                us,
                shown,
                "run_start taken from the first log line: set-up before logging is not seen"
                + (f"; {zone_note}" if zone_note else ""),
            )
        last_us, last_line, last_precise = us, number, precise
        if task_source == "default" and (found := compiled["task"].search(line)):
            run.task, task_source = found.group("task"), "pattern:task"
        if (found := compiled["restored"].search(line)) and (found.groupdict().get("step") or "").isdigit():
            restored_step = int(found.group("step"))
        if not training and compiled["train_start"].search(line):
            training = True
            fields = {} if restored_step is None else {"step": restored_step}
            run.add("train_start", us, shown, reason("train_start"), source_line=number, **fields)
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
        if (found := compiled["save_seconds"].search(line)) and found.groupdict().get("seconds"):
            seconds = float(found.group("seconds"))
            if math.isfinite(seconds) and seconds >= 0:
                saves.append(seconds)
        if ended is None and compiled["run_end"].search(line):
            ended = (us, number, reason("run_end"), precise)
    if first_us is None:
        outcome.rejects.append(Reject(FORMAT, shown, "no_timestamps", "no line matches the timestamp pattern"))
        return outcome
    if dump is not None:
        run.config = dump[2].config
        task = run.config.get(options.task_key)
        if task_source == "default" and isinstance(task, str) and task.strip():
            run.task, task_source = task, f"config:{options.task_key}"
    if options.task:
        run.task, task_source = options.task, "option"
    run.run_fields = {
        "source_run_id": shown,
        "source_status": "run_end line" if ended else None,
        "framework": "text",
        "task_source": task_source,
        "source_line": first_line,
    }
    if dump is not None:
        _describe_config(run, outcome, shown, dump, other_dumps)
    if ended:
        run.add("run_end", ended[0], shown, ended[2], status="completed", source_line=ended[1])
    if saves:
        end = ended or (last_us, last_line, None, last_precise)
        _add_save_profile(run, shown, saves, (first_us, first_precise), end, bool(ended), zone_note)
    if not ended:
        run.run_fields["last_heard_from"] = format_ts(last_us)
        outcome.notes.append(
            f"text log {shown}: no run_end line, imported as incomplete (last line {format_ts(last_us)})"
        )
    outcome.runs.append(run)
    return outcome


_FORMS = {"namespace": "a Namespace(...) dump", "dict": "a config dict", "json": "a JSON object"}


def _describe_config(run: Run, outcome: Outcome, shown: str, dump: tuple, other_dumps: list[int]) -> None:
    """Say on the run_start where its config comes from, and what of it is not exact."""
    number, _, parsed = dump
    run.run_fields["config_source"] = f"log line {number}: {_FORMS.get(parsed.form, 'a config dump')}"
    notes = []
    if parsed.raw_keys:
        count = len(parsed.raw_keys)
        keys = ", ".join(parsed.raw_keys[:5]) + (f" and {count - 5} more" if count > 5 else "")
        notes.append(f"{count} value(s) are no Python literals and are kept as their text ({keys})")
    notes.extend(parsed.problems)
    if other_dumps:
        notes.append(
            f"the log prints another config on line {other_dumps[0]}"
            + (f" and {len(other_dumps) - 1} more" if len(other_dumps) > 1 else "")
            + f" (a resumed training?): the first, line {number}, is the run's config"
        )
    if notes:
        run.run_fields["config_note"] = "; ".join(notes)
        outcome.notes.append(f"text log {shown}: config from line {number}: " + "; ".join(notes))


def _add_save_profile(
    run: Run, shown: str, saves: list[float], first: tuple, end: tuple, final: bool, zone_note: str | None
) -> None:
    """The save times the log states, as a profile whose wall time is the log's own span."""
    first_us, first_precise = first
    end_us, end_line, _, end_precise = end
    until = "run_end line" if final else "last timed line"
    approximation = [f"profile written by the importer at the log's {until}: no profiler wrote one"]
    if not (first_precise and end_precise):
        approximation.append("wall_seconds from log lines with whole-second times")
    if zone_note:
        approximation.append(zone_note)
    run.add(
        "profile",
        end_us,
        shown,
        "; ".join(approximation),
        wall_seconds=(end_us - first_us) / 1_000_000,
        sections={SAVE_SECTION: round(math.fsum(saves), 6)},
        final=final,
        source_line=end_line,
        wall_seconds_source=f"the log's span from its first timed line to its {until}",
        section_sources={SAVE_SECTION: f"the sum of the {len(saves)} save times the log states"},
    )
