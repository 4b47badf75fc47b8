"""Property-based tests: random event logs with random faults, through the real `dbt build`.

Each Hypothesis example is one folder of log files written from a random plan: several runs over a
few collections and tasks (nested configs, checkpoints, epoch ends, failed and unfinished runs,
resumed runs with and without a superseded run_end, profiler summaries, stray events outside a
run's span), timestamps in mixed forms, and faults: malformed, truncated and non-UTF-8 lines,
lines of every reject reason, exact duplicates (also with the same instant written another way),
blank lines, shuffled order, CRLF endings, byte order marks, gzip, empty files and files that are
not logs. The generator knows where every line went, so the checks compare the marts with values
known independently of the pipeline:

- accounting: agg_file_data_quality per file and in total, and every reject's file, line and reason;
- the plan: each run's status, source, wall, tail, downtime and restarts as constructed;
- identities between the figures of fct_runs and fct_run_intervals;
- differential: tests/support/oracle.py over the same folder (runs, intervals, collection statistics).

A build takes a while, so examples are few: RUNLENS_HYPOTHESIS_EXAMPLES (default 5), and they are
all checked in one build: Hypothesis generates them first, each example's files go to a subfolder
of its own (example-<n>/) and its run ids and collection names carry its own prefix (e<n>.), so no
line, run or collection of one example meets another's, and every check reads the example's own
files, runs and collections (the totals by reject reason and the identities: all of them at
once). Shrinking is off unless RUNLENS_HYPOTHESIS_SHRINK=1: then every example has a build of its
own (as does each shrink step). On a failure the raw folders and the database are kept and their
path is printed. The generated volume is summed in STATS and printed at the end of the module (and
written as JSON to $RUNLENS_HYPOTHESIS_SUMMARY when that is set).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support import oracle
from tests.support.pipeline import DATABASE, PROJECT, build

EXAMPLES = int(os.environ.get("RUNLENS_HYPOTHESIS_EXAMPLES", "5"))
SHRINK = bool(os.environ.get("RUNLENS_HYPOTHESIS_SHRINK"))
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SHRINK else [])
TOLERANCE = 1e-3  # seconds: every generated instant is a whole millisecond

BASE_MS = 1_740_787_200_000  # 2025-03-01T00:00:00Z
DAY_MS = 86_400_000
EPOCH = datetime(1970, 1, 1)
COLLECTIONS = ["sweep-a", "sweep b/ü", 'sweep "c"']
TASKS = ["cifar10", "imagenet 1k", "täsk-ß"]
RUN_ID_CHARS = "abü '\"\\/|:"
LOG_FILE_NAMES = [
    "a.jsonl",
    "b.jsonl",
    "logs/run log.jsonl",
    "logs/ü-node.jsonl",
    'it\'s "quoted".jsonl',
    "deep/er/part-2.jsonl",
]
SPECIAL_FILES = {  # name -> (bytes on disk, physical lines, blank lines)
    "empty.jsonl": (b"", 0, 0),
    "empty-gz.jsonl.gz": (gzip.compress(b"", mtime=0), 0, 0),
    "blank-only.jsonl": (b"\n  \n\t\r\n", 3, 3),
}
IGNORED_FILES = {  # not logs: must not show up anywhere (their lines are junk to the oracle too)
    "notes.txt": b"not a log\n",
    "export.json": b'{"run_id": "x", "event": "run_start"}\n',
    "a.jsonl.bak": b"garbage\n",
    "_import_rejects.jsonl": b"garbage\n",  # names starting with _ or . are not logs
    ".partial.jsonl": b"garbage\n",
    ".hidden/part.jsonl": b"garbage\n",
}
OFFSETS_MIN = [-720, -570, -300, -60, 0, 60, 330, 345, 540, 840]
BLANKS = [b"", b" ", b"\t", b"  \t ", b"\x0b", b"\x0c"]
BAD_BYTES = [b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82"]
BAD_TS = ["yesterday", "2025-02-30T10:00:00Z", "2025-03-01T25:00:00Z", "2025-13-01T00:00:00Z", "", "12:00:00"]
BAD_TS += [True, None, [1740787200], {"s": 1}]
# event names that are likely typos of a runlens type, or of no sensible form: unknown_event
UNKNOWN_EVENTS = ["Run_Start", "run_start ", "", "CHECKPOINT", "epoch-end", "checkpint", "run_ends", "9lives"]
# event names runlens does not use and that resemble none of its types: other events, not rejects
OTHER_EVENTS = ["metric", "eval", "log", "system/gpu_util", "lr-schedule", "epoch_start", "train.loss"]
# Faults on lines that name a real run: both the pipeline and the oracle drop them.
ORACLE_SKIPPED = ["invalid_utf8", "invalid_json", "not_object", "missing_run_id", "missing_event", "bad_ts"]
ORACLE_SKIPPED += ["unknown_event"]
# Faults the oracle does not classify (it reads them as events): they name junk runs only, which the
# pipeline must not have at all and which are left out of the comparison.
JUNK_ONLY = ["missing_step", "missing_run_fields", "bad_profile"]
REASONS = ORACLE_SKIPPED + JUNK_ONLY
JUNK_PREFIX = "junk-"

STATS: Counter = Counter()

# Strings from an explicit alphabet (ASCII, JSON's special characters, non-ASCII letters, an
# astral-plane emoji, control characters, U+2028, a BOM, NUL), drawn as lists of characters:
# st.text() would make Hypothesis cache its Unicode tables in a .hypothesis folder of the working
# tree (with database=None, nothing else is written there).
ALPHABET = [*"abcxyzABC019 _-./:$'\"\\{}[],", "é", "ß", "ü", "中", "文", "😀", "\u2028", "\ufeff", "\x00", "\x01"]
ALPHABET += ["\x1f", "\x7f", "\t", "\n", "\r", "\u00a0"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=8).map("".join)
json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(texts, children, max_size=3)),
    max_leaves=8,
)
configs = st.dictionaries(texts, json_values, max_size=5)


# --- the plan ----------------------------------------------------------------------------------


@dataclass
class Event:
    run_id: str
    kind: str
    ms: int
    fields: dict = field(default_factory=dict)

    @property
    def key(self):
        return (self.run_id, self.kind, self.ms, self.fields.get("step"), self.fields.get("epoch"))


@dataclass
class RunPlan:
    run_id: str
    collection: str
    task: str
    events: list[Event]
    status: str
    source: str | None
    wall: float | None
    pre_tail: float | None
    tail: float | None
    downtime: float
    restarts: int


@dataclass
class Line:
    data: bytes
    kind: str  # event, duplicate, other (an other event), fault, blank
    event: int | None = None  # index into Folder.events for event and duplicate lines
    reason: str | None = None  # for faults; the event type for other events


@dataclass
class LogFile:
    path: str
    lines: list[Line]
    crlf: bool
    bom: bool
    trailing_newline: bool

    @property
    def gzip(self) -> bool:
        return self.path.endswith(".gz")

    def content(self) -> bytes:
        ending = b"\r\n" if self.crlf else b"\n"
        body = ending.join(line.data for line in self.lines)
        if self.lines and self.trailing_newline:
            body += ending
        return (b"\xef\xbb\xbf" if self.bom else b"") + body


@dataclass
class Folder:
    runs: list[RunPlan]
    events: list[Event]
    files: list[LogFile]
    special: list[str]
    namespace: str  # the prefix of its run ids and collection names

    def __repr__(self) -> str:  # the whole plan is too long to print; its folder is kept on failure
        files = ", ".join(f"{log.path} ({len(log.lines)} lines)" for log in self.files)
        return f"Folder({len(self.runs)} runs, {len(self.events)} events, files: {files}, special: {self.special})"

    def write(self, raw: Path) -> None:
        for log in self.files:
            data = log.content()
            target = raw / log.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(gzip.compress(data, mtime=0) if log.gzip else data)
        for name in self.special:
            (raw / name).write_bytes(SPECIAL_FILES[name][0])
        for name, data in IGNORED_FILES.items():
            (raw / name).parent.mkdir(parents=True, exist_ok=True)
            (raw / name).write_bytes(data)

    def expected_files(self) -> dict[str, dict]:
        """Per file: where every line must end up, from the plan alone."""
        first_seen: dict[int, tuple[str, int]] = {}
        for log in self.files:
            for number, line in enumerate(log.lines, start=1):
                if line.kind in ("event", "duplicate"):
                    position = (log.path, number)
                    first_seen[line.event] = min(first_seen.get(line.event, position), position)
        expected = {}
        for log in self.files:
            kinds = Counter(line.kind for line in log.lines)
            accepted = sum(1 for path, _ in first_seen.values() if path == log.path)
            read = len(log.lines) - kinds["blank"]
            expected[log.path] = {
                "physical_lines": len(log.lines),
                "blank_lines": kinds["blank"],
                "lines_read": read,
                "accepted": accepted,
                "duplicates": kinds["event"] + kinds["duplicate"] - accepted,
                "other_events": kinds["other"],
                "rejected": kinds["fault"],
            }
        for name in self.special:
            _, physical, blank = SPECIAL_FILES[name]
            expected[name] = dict.fromkeys(("lines_read", "accepted", "duplicates", "other_events", "rejected"), 0)
            expected[name].update(physical_lines=physical, blank_lines=blank)
        return expected

    def other_events(self) -> Counter:
        return Counter(line.reason for log in self.files for line in log.lines if line.kind == "other")

    def faults(self) -> list[tuple[str, int, str]]:
        return sorted(
            (log.path, number, line.reason)
            for log in self.files
            for number, line in enumerate(log.lines, start=1)
            if line.kind == "fault"
        )


# --- rendering -----------------------------------------------------------------------------------


def render_ts(ms: int, rnd):
    """The instant `ms` (Unix milliseconds, UTC) in one of the forms the contract allows."""
    form = rnd.choice(["Z", "offset", "naive", "space", "epoch"])
    if form == "epoch":
        return ms // 1000 if ms % 1000 == 0 and rnd.random() < 0.5 else ms / 1000
    if form in ("Z", "naive"):
        offset, suffix = 0, ("Z" if form == "Z" else "")
    else:
        offset = rnd.choice(OFFSETS_MIN)
        sign = "+" if offset >= 0 else "-"
        suffix = f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
        if offset == 0 and rnd.random() < 0.5:
            suffix = "Z"
    local = EPOCH + timedelta(milliseconds=ms + offset * 60_000)
    millis = ms % 1000
    if millis:
        fraction = rnd.choice([f".{millis:03d}", f".{millis:03d}".rstrip("0"), f".{millis:03d}000"])
    else:
        fraction = rnd.choice(["", ".000"])
    separator = " " if form == "space" else rnd.choice("TTTt")
    if suffix == "Z":
        suffix = rnd.choice("ZZZz")
    return local.strftime("%Y-%m-%d") + separator + local.strftime("%H:%M:%S") + fraction + suffix


def event_doc(event: Event, rnd) -> dict:
    doc = {"run_id": event.run_id, "event": event.kind, "ts": render_ts(event.ms, rnd), **event.fields}
    if rnd.random() < 0.3:  # other fields are ignored, also the names that matter on other event types
        doc.update(loss=round(rnd.random(), 4), host=rnd.choice(["node-1", "nöde 2"]))
        if event.kind in ("checkpoint", "epoch_end", "profile"):
            doc.update(rnd.choice([{"collection": "decoy"}, {"status": "failed"}, {"task": "decoy", "config": {}}]))
    items = list(doc.items())
    if rnd.random() < 0.3:
        rnd.shuffle(items)
    return dict(items)


def dumps(doc, rnd) -> str:
    return json.dumps(doc, ensure_ascii=rnd.random() < 0.5)


def fault_line(reason: str, event: Event, junk_id: str, rnd) -> bytes:
    """A line that the contract rejects with exactly `reason`.

    Lines of the ORACLE_SKIPPED reasons are built from a real event of a real run (so accepting them
    would change that run); JUNK_ONLY reasons name a junk run that has no valid line at all.
    """
    doc = event_doc(event, rnd)
    ts = render_ts(event.ms, rnd)
    if reason == "invalid_utf8":
        text = json.dumps({**doc, "note": "@@BAD@@"}, ensure_ascii=rnd.random() < 0.5)
        return text.encode().replace(b"@@BAD@@", b"x" + rnd.choice(BAD_BYTES) + b"y")
    if reason == "invalid_json":
        text = json.dumps(doc)
        variants = [
            text[: rnd.randint(1, len(text) - 1)],  # truncated
            text[:-1] + ", }",  # trailing comma
            text.replace('"', "'"),  # single quotes
            text.replace(', "', ' "', 1),  # missing comma
            text + " " + text,  # two objects
            "this is not json",
            "{",
            '{"run_id": }',
        ]
        return rnd.choice(variants).encode()
    if reason == "not_object":
        return rnd.choice(["[" + json.dumps(doc) + "]", json.dumps(event.run_id), "42", "null", "true", "[]"]).encode()
    if reason == "missing_run_id":
        bad = {"event": "eval", "ts": ts, "step": 1}
        choice = rnd.choice(["absent", "", 7, None, ["x"], {"id": "x"}])
        if choice != "absent":
            bad["run_id"] = choice
        return dumps(bad, rnd).encode()
    if reason == "missing_event":
        bad = {key: value for key, value in doc.items() if key != "event"}
        choice = rnd.choice(["absent", 5, None, [event.kind]])
        if choice != "absent":
            bad["event"] = choice
        return dumps(bad, rnd).encode()
    if reason == "bad_ts":
        bad = {key: value for key, value in doc.items() if key != "ts"}
        choice = rnd.choice([*BAD_TS, "absent"])
        if choice != "absent":
            bad["ts"] = choice
        return dumps(bad, rnd).encode()
    if reason == "unknown_event":
        return dumps({**doc, "event": rnd.choice(UNKNOWN_EVENTS)}, rnd).encode()
    junk = {"run_id": junk_id, "ts": ts}
    if reason == "missing_step":
        junk["event"] = "checkpoint"
        # (no array or object step: the oracle puts step in a set key and would crash on it)
        choice = rnd.choice(["absent", "100", 1.5, None, 2**70, 2**64, 2**63, True])
        if choice != "absent":
            junk["step"] = choice
    elif reason == "missing_run_fields":
        # `collection` is always present: the oracle reads it from any run_start it sees
        collection, task = rnd.choice([("", "t"), ("c", "absent"), (5, "t"), ("c", ""), ("c", None), (None, "t")])
        junk.update(event="run_start", collection=collection)
        if task != "absent":
            junk["task"] = task
    elif reason == "bad_profile":
        junk["event"] = "profile"
        wall = rnd.choice([-1, -0.001, "100", None, True, "absent", 10])
        if wall != "absent":
            junk["wall_seconds"] = wall
        if wall == 10:  # a valid wall time: the sections make it bad
            junk["sections"] = rnd.choice(["x", [1], {"a": -1}, {"a": "1"}, {"a": None}, {"a": True}, 5])
    else:
        raise AssertionError(reason)
    return dumps(junk, rnd).encode()


# --- the generator -------------------------------------------------------------------------------


@st.composite
def run_plans(draw, index: int, collections: list[str], namespace: str) -> RunPlan:
    run_id = f"{namespace}run-{index}" + "".join(draw(st.lists(st.sampled_from(RUN_ID_CHARS), max_size=3)))
    collection = draw(st.sampled_from(collections))
    task = draw(st.sampled_from(TASKS))
    segments = draw(st.integers(1, 3))
    ending = draw(st.sampled_from(["completed", "completed", "failed", "none"]))
    with_epochs = draw(st.integers(0, 3)) > 0
    config = draw(configs)

    def gap(low: int, high: int) -> int:
        return draw(st.integers(low, high))

    def step_gap(high: int) -> int:  # 0 now and then: two markers at the same instant
        return 0 if draw(st.integers(0, 5)) == 0 else gap(1, high)

    t = first = BASE_MS + gap(0, 10 * DAY_MS)
    events: list[Event] = []
    markers: list[Event] = []
    step = epoch = 0
    restarts: list[int] = []  # each restart's run_start, ms
    for segment in range(segments):
        if segment:
            if draw(st.booleans()):  # the crash left a run_end that the restart supersedes
                t += gap(1, 600_000)
                events.append(Event(run_id, "run_end", t, {"status": draw(st.sampled_from(["crashed", "oom"]))}))
            t += gap(1, 3_600_000)
            restarts.append(t)
            if draw(st.booleans()):  # resumed from an earlier checkpoint: step numbers repeat
                step = max(0, step - gap(0, 1500))
        fields = {"collection": collection, "task": task}
        if segment == 0 or draw(st.booleans()):
            fields["config"] = config if segment == 0 else draw(configs)
        start = Event(run_id, "run_start", t, fields)
        events.append(start)
        markers.append(start)
        for _ in range(draw(st.integers(0, 4))):
            t += step_gap(7_200_000)
            step += gap(1, 1000)
            checkpoint = Event(run_id, "checkpoint", t, {"step": step})
            events.append(checkpoint)
            markers.append(checkpoint)
            if with_epochs and draw(st.booleans()):
                t += step_gap(600_000)  # 0: the same instant as the checkpoint, ordered after it
                epoch += 1
                fields = {"epoch": epoch, "step": step} if draw(st.booleans()) else {"epoch": epoch}
                epoch_end = Event(run_id, "epoch_end", t, fields)
                events.append(epoch_end)
                markers.append(epoch_end)

    end = None
    if ending != "none":
        t += step_gap(7_200_000)  # 0 without checkpoints: a run of 0 seconds
        if ending == "completed":
            fields = draw(st.sampled_from([{}, {"status": "completed"}]))
        else:
            fields = {"status": draw(st.sampled_from(["failed", "oom", "Completed", "crashed"]))}
        end = Event(run_id, "run_end", t, fields)
        events.append(end)

    if draw(st.integers(0, 3)) == 0:  # events outside the run's span are not markers
        events.append(Event(run_id, "checkpoint", first - gap(1, 600_000), {"step": 0}))
        if end is not None:
            events.append(Event(run_id, "checkpoint", end.ms + gap(1, 600_000), {"step": step + 1}))

    profiles = []
    for _ in range(draw(st.integers(0, 2)) if draw(st.booleans()) else 0):
        at = gap(first, t + 600_000)
        if any(p.ms == at for p in profiles):
            continue
        wall = gap(0, 20_000_000)
        fields = {"wall_seconds": wall // 1000 if draw(st.booleans()) else wall / 1000}
        if draw(st.booleans()):
            names = draw(st.lists(st.sampled_from(["data_loading", "compute", "eval", "ckpt io", "ü"]), unique=True))
            fields["sections"] = {name: gap(0, 5_000_000) / 1000 for name in names}
        profiles.append(Event(run_id, "profile", at, fields))
    events.extend(profiles)
    # def_downtime: each restart's downtime runs from its session's last event (a marker, the run_end
    # the crash left, or a profile written in the session) to the restart
    starts = [first, *restarts]
    downtime = sum(
        restart - max(event.ms for event in events if previous <= event.ms < restart)
        for previous, restart in zip(starts, restarts, strict=False)
    )

    pre_tail = tail = None
    if end is not None:
        status = "completed" if end.fields.get("status", "completed") == "completed" else "failed"
        source, wall = "event_log", (end.ms - first) / 1000
        epoch_ends = [m for m in markers if m.kind == "epoch_end"]
        # def_final_epoch_end: a checkpoint after the last epoch_end that saved a later step than that
        # epoch_end's means training went on: the time after it is no final tail (neither part known)
        final = max(epoch_ends, key=lambda m: m.ms) if epoch_ends else None
        trained_after = final is not None and any(
            m.kind == "checkpoint"
            and m.ms > final.ms
            and final.fields.get("step") is not None
            and m.fields["step"] > final.fields["step"]
            for m in markers
        )
        if final is not None and not trained_after:
            pre_tail, tail = (final.ms - first) / 1000, (end.ms - final.ms) / 1000
    elif profiles:
        status, source = "completed", "profiler"
        wall = max(profiles, key=lambda p: p.ms).fields["wall_seconds"]
    else:
        status, source, wall = "incomplete", None, None
    if source == "profiler":  # def_downtime: the profiler's wall time is in-process time, with no downtime
        downtime = 0
    return RunPlan(
        run_id, collection, task, events, status, source, wall, pre_tail, tail, downtime / 1000, segments - 1
    )


@st.composite
def log_folders(draw, namespace: str = "") -> Folder:
    # layout details (files, order, timestamp forms, which event a fault copies) come from a seeded
    # stream, so even Hypothesis's first, simplest example is a varied folder
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    collections = [namespace + name for name in COLLECTIONS[: draw(st.integers(1, len(COLLECTIONS)))]]
    runs = [draw(run_plans(index, collections, namespace)) for index in range(draw(st.integers(3, 8)))]
    events = [event for run in runs for event in run.events]
    assert len({event.key for event in events}) == len(events), "the plan must not repeat an event"

    lines: list[Line] = []
    duplicate_rate = draw(st.sampled_from([0.1, 0.0, 0.3]))
    for index, event in enumerate(events):
        padding = rnd.choice(["", "", "", " ", "\t", "  "])  # white space around the object is allowed
        lines.append(Line((padding + dumps(event_doc(event, rnd), rnd) + padding).encode(), "event", index))
        for _ in range(2):  # the same text, or the same instant written another way
            if rnd.random() >= duplicate_rate:
                break
            text = lines[-1].data if rnd.random() < 0.5 else dumps(event_doc(event, rnd), rnd).encode()
            lines.append(Line(text, "duplicate", index))
    for number in range(draw(st.integers(6, 25))):
        reason = draw(st.sampled_from(REASONS))
        data = fault_line(reason, rnd.choice(events), f"{JUNK_PREFIX}{namespace}{number}", rnd)
        lines.append(Line(data, "fault", reason=reason))
    for _ in range(draw(st.integers(0, 6))):  # a metric or eval line about a real run: never a marker
        name = rnd.choice(OTHER_EVENTS)
        doc = {**event_doc(rnd.choice(events), rnd), "event": name}
        lines.append(Line(dumps(doc, rnd).encode(), "other", reason=name))
    for _ in range(draw(st.integers(2, 8))):
        lines.append(Line(rnd.choice(BLANKS), "blank"))

    names = draw(st.lists(st.sampled_from(LOG_FILE_NAMES), min_size=2, max_size=5, unique=True))
    files = [
        LogFile(
            name + (".gz" if rnd.random() < 0.3 else ""),
            [],
            crlf=rnd.random() < 0.3,
            bom=rnd.random() < 0.25,
            trailing_newline=rnd.random() < 0.8,
        )
        for name in names
    ]
    for line in lines:
        rnd.choice(files).lines.append(line)
    for log in files:
        if rnd.random() < 0.7:
            rnd.shuffle(log.lines)
        if not log.trailing_newline and rnd.random() < 0.3:  # a truncated last line
            cut = fault_line("invalid_json", rnd.choice(events), "unused", rnd)
            log.lines.append(Line(cut, "fault", reason="invalid_json"))
        if log.lines and log.lines[-1].data == b"":
            log.trailing_newline = True  # an empty last line needs its newline to be a line
        if not log.lines:
            log.bom = False
    special = draw(st.lists(st.sampled_from(sorted(SPECIAL_FILES)), max_size=2, unique=True))
    return Folder(runs, events, files, special, namespace)


# --- checks --------------------------------------------------------------------------------------


def rows(db, sql: str, *params) -> list[dict]:
    cursor = db.execute(sql, list(params))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def close(actual, expected, what: str) -> None:
    if expected is None:
        assert actual is None, f"{what}: expected NULL, got {actual}"
    else:
        assert actual is not None, f"{what}: expected {expected}, got NULL"
        assert float(actual) == pytest.approx(expected, abs=TOLERANCE), f"{what}: expected {expected}, got {actual}"


def check_accounting(db, folder: Folder, directory: str) -> None:
    """The files of the example written to `directory` (a prefix of their paths)."""
    expected = folder.expected_files()
    found = {
        row["file_path"].removeprefix(directory): row
        for row in rows(db, "select * from agg_file_data_quality where starts_with(file_path, ?)", directory)
    }
    assert set(found) == set(expected), "the files read are exactly the log files written"
    for path, want in expected.items():
        row = found[path]
        assert row["read_error"] is None, (path, row["read_error"])
        assert row["physical_lines"] == row["lines_read"] + row["blank_lines"], path
        assert row["lines_read"] == row["accepted"] + row["duplicates"] + row["other_events"] + row["rejected"], path
        assert {column: row[column] for column in want} == want, path
    totals = {column: sum(want[column] for want in expected.values()) for column in next(iter(expected.values()))}
    assert totals["lines_read"] == sum(len(log.lines) for log in folder.files) - sum(
        line.kind == "blank" for log in folder.files for line in log.lines
    )
    assert totals["accepted"] == len(folder.events)
    assert totals["duplicates"] == sum(line.kind == "duplicate" for log in folder.files for line in log.lines)

    rejects = sorted(
        (row["file_path"].removeprefix(directory), row["line_number"], row["reject_reason"])
        for row in rows(
            db,
            "select file_path, line_number, reject_reason from fct_rejected_lines where starts_with(file_path, ?)",
            directory,
        )
    )
    assert rejects == folder.faults(), "every injected fault is rejected where it was written, with its reason"


def check_totals(db, examples: dict[str, Folder]) -> None:
    """Across every example (by the folder each was written to): the files read are exactly theirs,
    the runs exactly the planned ones, and the rejects by reason all of theirs."""
    files = {row["file_path"] for row in rows(db, "select file_path from agg_file_data_quality")}
    assert files == {directory + path for directory, folder in examples.items() for path in folder.expected_files()}
    runs = {row["run_id"] for row in rows(db, "select run_id from fct_runs")}
    assert runs == {run.run_id for folder in examples.values() for run in folder.runs}, "no junk run anywhere"
    by_reason = {
        row["reject_reason"]: row["rejected_lines"] for row in rows(db, "select * from agg_build_reject_reasons")
    }
    assert by_reason == dict(Counter(reason for folder in examples.values() for _, _, reason in folder.faults()))
    by_type = {row["event_type"]: row["other_event_lines"] for row in rows(db, "select * from agg_build_other_events")}
    assert by_type == dict(sum((folder.other_events() for folder in examples.values()), Counter()))


def example_runs(db, folder: Folder) -> dict[str, dict]:
    """fct_runs' rows of the example's runs (by their run ids' prefix)."""
    found = rows(db, "select * from fct_runs where starts_with(run_id, ?)", folder.namespace)
    return {row["run_id"]: row for row in found}


def check_runs_against_plan(db, folder: Folder) -> None:
    found = example_runs(db, folder)
    assert set(found) == {run.run_id for run in folder.runs}, "runs are exactly the planned ones (no junk run)"
    for run in folder.runs:
        row = found[run.run_id]
        what = f"run {run.run_id!r}"
        assert (row["collection"], row["task"]) == (run.collection, run.task), what
        assert row["status"] == run.status, what
        assert row["measurement_source"] == run.source, what
        assert row["exclusion_reason"] == (None if run.status == "completed" else run.status), what
        assert row["restarts"] == run.restarts, what
        close(row["wall_seconds"], run.wall, f"{what} wall_seconds")
        close(row["pre_tail_seconds"], run.pre_tail, f"{what} pre_tail_seconds")
        close(row["tail_seconds"], run.tail, f"{what} tail_seconds")
        close(row["downtime_seconds"], run.downtime, f"{what} downtime_seconds")


def check_identities(db) -> None:
    runs = rows(db, "select * from fct_runs")
    sums = dict(db.execute("select run_id, sum(seconds) from fct_run_intervals group by run_id").fetchall())
    for run in runs:
        what = f"run {run['run_id']!r}"
        if run["measurement_source"] == "event_log":
            close(sums.get(run["run_id"], 0.0), run["wall_seconds"], f"{what}: intervals sum to wall_seconds")
        if run["active_seconds"] is not None:
            assert run["active_seconds"] >= 0, f"{what}: active_seconds {run['active_seconds']}"
        if run["tail_share"] is not None:
            assert 0 <= run["tail_share"] <= 1, what
        if run["pre_tail_seconds"] is not None and run["tail_seconds"] is not None:
            close(run["pre_tail_seconds"] + run["tail_seconds"], run["wall_seconds"], f"{what}: pre_tail + tail")
        if run["wall_seconds"] is not None:
            close(run["active_seconds"] + run["downtime_seconds"], run["wall_seconds"], f"{what}: active + downtime")
        for column in ("wall_seconds", "pre_tail_seconds", "tail_seconds", "downtime_seconds"):
            assert run[column] is None or run[column] >= 0, f"{what}: {column} {run[column]}"
    negative = db.execute("select run_id, label, seconds from fct_run_intervals where seconds < 0").fetchall()
    assert negative == []


def check_against_oracle(db, raw: Path, folder: Folder) -> None:
    expected = {
        run_id: run
        for run_id, run in oracle.runs_from(oracle.read_events(raw)).items()
        if not str(run_id).startswith(JUNK_PREFIX)
    }
    found = example_runs(db, folder)
    assert set(found) == set(expected), "the pipeline's runs are the oracle's (junk runs aside)"
    for run_id, want in expected.items():
        row = found[run_id]
        what = f"oracle, run {run_id!r}"
        assert row["status"] == want.status, what
        assert row["measurement_source"] == want.source, what
        close(row["wall_seconds"], want.wall, f"{what} wall_seconds")
        close(row["pre_tail_seconds"], want.pre_tail, f"{what} pre_tail_seconds")
        close(row["tail_seconds"], want.tail, f"{what} tail_seconds")
        close(row["tail_share"], want.tail_share, f"{what} tail_share")
        close(row["downtime_seconds"], want.downtime, f"{what} downtime_seconds")
        intervals = db.execute(
            "select label, seconds from fct_run_intervals where run_id = ? order by interval_index", [run_id]
        ).fetchall()
        assert [label for label, _ in intervals] == [label for label, _ in want.intervals], what
        for (label, seconds), (_, want_seconds) in zip(intervals, want.intervals, strict=True):
            close(seconds, want_seconds, f"{what} interval {label}")

    for collection in sorted({run.collection for run in folder.runs}):
        row = rows(db, "select * from agg_collection_runtime where collection = ?", collection)
        assert len(row) == 1, collection
        row = row[0]
        analysed = [run for run in expected.values() if run.collection == collection and run.status == "completed"]
        if analysed:
            want = oracle.collection_stats(expected, collection)
        else:
            excluded = sum(1 for run in expected.values() if run.collection == collection)
            want = {"runs_analyzed": 0, "runs_excluded": excluded, "mean_wall_seconds": None}
            want.update(dict.fromkeys(["median_wall_seconds", "min_wall_seconds", "max_wall_seconds"]))
            want.update(dict.fromkeys(["mean_tail_seconds", "max_tail_seconds", "mean_tail_share"]))
        assert (row["runs_analyzed"], row["runs_excluded"]) == (want["runs_analyzed"], want["runs_excluded"])
        for column, value in want.items():
            if column not in ("runs_analyzed", "runs_excluded"):
                close(row[column], value, f"oracle, collection {collection!r} {column}")


def record(folder: Folder) -> None:
    STATS["examples"] += 1
    STATS["runs"] += len(folder.runs)
    STATS["resumed runs"] += sum(run.restarts > 0 for run in folder.runs)
    STATS["log files"] += len(folder.files) + len(folder.special)
    STATS["gzip files"] += sum(log.gzip for log in folder.files) + ("empty-gz.jsonl.gz" in folder.special)
    STATS["crlf files"] += sum(log.crlf for log in folder.files)
    STATS["bom files"] += sum(log.bom for log in folder.files)
    STATS["empty files"] += sum(not log.lines for log in folder.files)
    STATS["empty files"] += sum(SPECIAL_FILES[name][1] == 0 for name in folder.special)
    STATS["ignored files"] += len(IGNORED_FILES)
    for log in folder.files:
        STATS["lines"] += len(log.lines)
        for line in log.lines:
            STATS[f"{line.kind} lines"] += 1
            if line.kind == "fault":
                STATS["faults"] += 1
                STATS[f"fault {line.reason}"] += 1
    for name in folder.special:
        STATS["lines"] += SPECIAL_FILES[name][1]
        STATS["blank lines"] += SPECIAL_FILES[name][2]


def summary_line() -> str:
    reasons = ", ".join(f"{reason} {STATS[f'fault {reason}']}" for reason in REASONS)
    return (
        f"runlens property tests: {STATS['examples']} examples, {STATS['log files']} log files "
        f"({STATS['gzip files']} gzip, {STATS['crlf files']} CRLF, {STATS['bom files']} BOM, "
        f"{STATS['empty files']} empty) + {STATS['ignored files']} non-log files, {STATS['lines']} lines "
        f"({STATS['event lines']} events, {STATS['duplicate lines']} duplicates, {STATS['blank lines']} blank, "
        f"{STATS['faults']} faults: {reasons}), {STATS['runs']} runs ({STATS['resumed runs']} resumed), "
        f"{STATS['build seconds']:.0f} s of dbt build"
    )


# --- tests ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def generation_summary(request):
    """Print (and optionally save) what the property tests generated, once the module is done."""
    yield
    if not STATS["examples"]:
        return
    line = summary_line()
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            reporter.write_line(line)
    else:
        print(line)
    if os.environ.get("RUNLENS_HYPOTHESIS_SUMMARY"):
        Path(os.environ["RUNLENS_HYPOTHESIS_SUMMARY"]).write_text(json.dumps(dict(STATS), indent=2, sort_keys=True))


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=PHASES,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def generated_folders() -> list[Folder]:
    """EXAMPLES folders as Hypothesis generates them, each with its own namespace (e<n>.)."""
    folders: list[Folder] = []

    @SETTINGS
    @given(data=st.data())
    def generate(data):
        folders.append(data.draw(log_folders(f"e{len(folders)}."), label="folder"))

    generate()
    return folders


@contextmanager
def about(directory: str, folder: Folder):
    """A failed check names the example it was about."""
    try:
        yield
    except AssertionError as error:
        error.add_note(f"in the example written to {directory}: {folder!r}")
        raise


def check_examples(folders: list[Folder]) -> None:
    """Write every example to a subfolder of one raw folder, build it once, check every example.
    On a failure the raw folder and the database are kept, and their path noted."""
    workdir = Path(tempfile.mkdtemp(prefix="runlens-property-"))
    kept = False
    try:
        raw = workdir / "raw"
        examples = {f"example-{index}/": folder for index, folder in enumerate(folders)}
        for directory, folder in examples.items():
            folder.write(raw / directory)
            record(folder)
        started = time.monotonic()
        build(PROJECT, raw, workdir / "db" / DATABASE)
        STATS["build seconds"] += time.monotonic() - started
        with duckdb.connect(str(workdir / "db" / DATABASE), read_only=True) as db:
            check_totals(db, examples)
            check_identities(db)
            for directory, folder in examples.items():
                with about(directory, folder):
                    check_accounting(db, folder, directory)
                    check_runs_against_plan(db, folder)
                    check_against_oracle(db, raw / directory, folder)
    except BaseException as error:
        kept = True
        error.add_note(f"the examples' raw folders and database are kept in {workdir}")
        raise
    finally:
        if not kept:
            shutil.rmtree(workdir, ignore_errors=True)


def test_random_faulty_logs():
    if SHRINK:  # a build per example, so that Hypothesis can shrink a failing one

        @SETTINGS
        @given(folder=log_folders("e0."))
        def each_example(folder):
            check_examples([folder])

        each_example()
    else:
        check_examples(generated_folders())


# --- the generator itself (no build) -------------------------------------------------------------


@pytest.mark.parametrize("reason", REASONS)
def test_generated_faults_are_what_the_oracle_expects(reason, tmp_path):
    """The differential comparison is fair only if the oracle skips the faults that name real runs
    (it reads valid events only) and never crashes on any fault line (every variant, many times)."""
    for seed in range(200):
        rnd = random.Random(seed)
        for kind, fields in (("run_start", {"collection": "c", "task": "t"}), ("checkpoint", {"step": 5})):
            line = fault_line(reason, Event("run-0", kind, BASE_MS + 1234, fields), "junk-0", rnd)
            (tmp_path / "f.jsonl").write_bytes(line + b"\n")
            events = oracle.read_events(tmp_path)
            oracle.runs_from(events)
            if reason in ORACLE_SKIPPED:
                assert events == [], line
            else:
                assert all(event["run_id"] == "junk-0" for event in events), line


@settings(max_examples=300, deadline=None, database=None)
@given(st.randoms(use_true_random=False), st.integers(0, 20 * 365 * DAY_MS))
def test_generated_timestamps_name_the_planned_instant(rnd, ms):
    """Every timestamp form the generator writes means the planned millisecond (read by the oracle)."""
    value = render_ts(ms, rnd)
    at = oracle.parse_ts(value)
    assert at == datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
