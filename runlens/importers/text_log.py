"""Line-oriented training logs (fairseq by default) -> one run per file.

Each line that starts with a timestamp is read, and named patterns (each replaceable with
`--text-pattern NAME=REGEX`) pick the markers out of it. The patterns and their fairseq defaults,
the config dump, the restarts, the profiles of where the time went (text_log_profiles.py) and the time
zone: docs/importers.md, "Text logs".

Its importer (IMPORTER) claims each file that looks like such a log (a file PATH given with
--format text, whatever it looks like), but for those an earlier importer took.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, format_ts
from .config_dump import ConfigDump, parse_config_dump
from .importer import Claimed, Claims, Importer, Source, Walk
from .text_log_profiles import TRAIN_SECTION, ProcessProfiles

FORMAT = "text"
_NUMBER = r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
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
    "save_seconds": rf"[Ss]aved checkpoint .*\(writing took (?P<seconds>{_NUMBER}) seconds\)",
    "validation_start": r'begin validation on "[^"]*" subset',
    "validation_end": r"\| valid on '[^']*' subset",
    "train_wall": rf"\| train \| epoch (?P<epoch>\d+) \|.*\| train_wall (?P<seconds>{_NUMBER})(?: \||$)",
}
START_REASON = "run_start taken from the first log line: set-up before logging is not seen"
RESTART_REASON = (
    "run_start of a restarted process taken from its config dump, printed after an earlier process had begun "
    "training: set-up before logging is not seen"
)
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
    last_precise = False
    ended = None  # the last process's run_end line: (us, line, reason, precise)
    task_source = "default"
    epoch_steps: dict[int, int] = {}
    training, restored_step = False, None  # this process: a train_start written; the step a loaded checkpoint names
    dump: tuple[int, str, ConfigDump] | None = None  # (line, text, parsed): the first config dump
    other_dumps: list[int] = []  # lines of later dumps that state another config
    processes: list[ProcessProfiles] = []  # one per process: a restart in the log is a new one
    for number, line in enumerate(text.splitlines(), start=1):
        stated_dump = None
        if found := compiled["config"].search(line):
            stated_dump = (found.groupdict().get("config") or found.group(0)).strip()
            if dump is None:
                dump = (number, stated_dump, parse_config_dump(stated_dump))
            elif stated_dump != dump[1]:
                other_dumps.append(number)
        stamp = compiled["timestamp"].search(line)
        if not stamp:
            continue
        try:
            us, precise = _parse_ts(stamp.group("ts"), zone or UTC)
        except ValueError as error:
            detail = f"line {number}: {stamp.group('ts')!r} is no time ({error}); the line is not read"
            outcome.rejects.append(Reject(FORMAT, shown, "bad_timestamp", detail))
            continue

        def reason(what: str, precise: bool = precise) -> str | None:
            parts = [] if precise else [f"{what} from a log line with whole-second times"]
            if zone_note:
                parts.append(zone_note)
            return "; ".join(parts) or None

        if first_us is None or (stated_dump is not None and training):
            # the first timed line, or a config dump after training began: a process starts
            if processes:
                _end_process(processes[-1], ended, (last_us, last_line, last_precise))
            restart = first_us is not None
            first_us, first_line = (first_us, first_line) if restart else (us, number)
            training, restored_step, ended = False, None, None
            processes.append(ProcessProfiles(us, number, precise))
            run.add(
                "run_start",
                us,
                shown,
                (RESTART_REASON if restart else START_REASON) + (f"; {zone_note}" if zone_note else ""),
                **({"source_line": number} if restart else {}),
            )
        process = processes[-1]
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
        if (found := compiled["save_seconds"].search(line)) and found.groupdict().get("seconds"):
            process.save(float(found.group("seconds")))
        if compiled["validation_start"].search(line):
            process.validation_begins(us)
        if compiled["validation_end"].search(line):
            process.validation_ends(us)
        if found := compiled["epoch_end"].search(line):
            epoch = int(found.group("epoch"))
            fields = {"epoch": epoch}
            if epoch in epoch_steps:
                fields["step"] = epoch_steps[epoch]
            run.add("epoch_end", us, shown, reason("epoch_end"), source_line=number, **fields)
            process.epoch_ends(us, number, precise, epoch)
        if (found := compiled["train_wall"].search(line)) and found.groupdict().get("seconds"):
            epoch = found.groupdict().get("epoch")
            process.train_wall(int(epoch) if epoch else None, float(found.group("seconds")))
        if ended is None and compiled["run_end"].search(line):
            ended = (us, number, reason("run_end"), precise)
            run.add("run_end", us, shown, ended[2], status="completed", source_line=number)
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
    _end_process(processes[-1], ended, (last_us, last_line, last_precise), last_process=True)
    for process, following in zip(processes, [*processes[1:], None], strict=True):
        _add_profiles(run, shown, process, zone_note, following.start_us if following else None)
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


def _end_process(process: ProcessProfiles, ended: tuple | None, last: tuple, last_process: bool = False) -> None:
    """Close a process at its run_end line, else at its last timed line; only the run's last
    process, ended by a run_end line, gets a final profile."""
    if ended is not None:
        process.ends(ended[0], ended[1], ended[3], "the run_end line", final=last_process)
    else:
        process.ends(last[0], last[1], last[2], "the last timed line", final=False)


def _add_profiles(
    run: Run, shown: str, process: ProcessProfiles, zone_note: str | None, next_start_us: int | None
) -> None:
    """The figures a process's lines state, as cumulative profiles (text_log_profiles.py). A profile
    in the second the next process starts is left out: ordered after that run_start, it would read
    as the next process's."""
    for taken, fields in process.profiles():
        if next_start_us is not None and taken.ts_us >= next_start_us:
            continue
        approximation = [f"profile written by the importer at {taken.at}: no profiler wrote one"]
        if not (process.start_precise and taken.precise):
            approximation.append("wall_seconds and validation from log lines with whole-second times")
        if TRAIN_SECTION in fields["sections"] and process.whole_second_train_walls():
            approximation.append("train_wall stated in whole seconds")
        if zone_note:
            approximation.append(zone_note)
        run.add("profile", taken.ts_us, shown, "; ".join(approximation), **fields)


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per log file, but for those an earlier importer took."""
    claims = Claims()
    for path in walk.files:
        if explicit and walk.path.is_file() or looks_like_log(path, options):
            owner = claimed.owner(path, FORMAT)
            if owner is not None:
                claims.notes.append(owner.said_of(path))
            else:
                claims.sources.append(Source(IMPORTER, path, walk.base, [path]))
    return claims


def read(source: Source, options: Options) -> Outcome:
    return import_log(source.path, source.root, options)


IMPORTER = Importer(FORMAT, "text", "text", None, claim, read)
