"""What every importer shares: the imported run, its events, rejects, times and the JSONL writer.

An importer turns one source (a TensorBoard run folder, an MLflow run, a text log, a W&B run) into
a `Run` of contract events. Each event line carries, beside the contract fields, where it came from
(`source_format`, `source_path`) and whether its time is exact (`is_approximate`, and an
`approximation` that says why not). Problems with the input become `Reject`s, written to
`<out>/_import_rejects.jsonl`, never exceptions.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REJECTS_FILE = "_import_rejects.jsonl"
EVENT_ORDER = {
    "run_start": 0,
    "train_start": 1,
    "checkpoint": 2,
    "epoch_end": 3,
    "run_end": 4,
    "profile": 5,
    "sample": 6,  # a utilization sample (input_contract.md, "Utilization samples")
}
# Checked in this order; `reason` of a Reject is one of these.
REJECT_REASONS = {
    "unreadable_event_file": "a TensorBoard event file that could not be opened or whose first record is unreadable",
    "unreadable_wandb_file": "a W&B run file (run-<id>.wandb) that could not be read or lacks W&B's header",
    "corrupt_record": "a record that fails its checksum or does not parse; the rest of that file is not read",
    "truncated_record": "a file that ends inside a record (the writer was stopped mid-write)",
    "missing_meta_yaml": "an MLflow experiment or run folder without meta.yaml",
    "bad_meta_yaml": "an MLflow meta.yaml that is not valid YAML or lacks its required keys",
    "unreadable_file": "a file that could not be read (permissions, not UTF-8, vanished)",
    "unreadable_sqlite_store": "an MLflow sqlite database that cannot be opened or lacks the MLflow tables",
    "no_timestamps": "a text log without a single line that matches the timestamp pattern",
    "bad_timestamp": "a text log line whose timestamp matches the pattern but is no time (month 13, hour 25): not read",
    "checkpoint_outside_run": "a checkpoint file whose modification time lies outside its run (copied files?)",
    "empty_run": "a source with no timed event at all",
    "bad_csv_row": "an nvidia-smi CSV row that does not parse (a field count other than the header's, a time or a "
    "number that is none): the row is not read",
    "bad_metric_line": "a DCGM exporter line that is no Prometheus text exposition, or whose value or timestamp is "
    "no number, or a series given twice in one scrape: the line is not read",
    "samples_without_run": "a cluster GPU log (nvidia-smi, DCGM) that no imported run's folder or time window holds: "
    "its samples are not written (--samples-run RUN_ID names their run)",
    "samples_of_several_runs": "a cluster GPU log whose samples lie in the time windows of several imported runs: "
    "its samples are not written (--samples-run RUN_ID names their run)",
    "bad_profiler_report": "a framework profiler's report (Lightning's SimpleProfiler or AdvancedProfiler, a "
    "Hugging Face trainer_state.json) that does not parse or ends inside its table: its sections are not written",
    "report_without_run": "a framework profiler's report that no imported run's folder holds (or whose folder holds "
    "several runs): it has no timestamps, so only a run whose timeline other files give can take it",
    "import_error": "the importer itself failed on this source (a bug: please report it); other sources go on",
}


def us_from_seconds(seconds: float) -> int:
    """Unix seconds (float, as TensorBoard stores them) to integer microseconds."""
    return round(seconds * 1_000_000)


def us_from_millis(millis: int) -> int:
    """Unix milliseconds (as MLflow stores them) to integer microseconds, exactly."""
    return int(millis) * 1000


def format_ts(us: int) -> str:
    """Integer microseconds since the epoch as RFC 3339 UTC with microseconds."""
    seconds, micros = divmod(us, 1_000_000)
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{micros:06d}Z"


@dataclass
class Options:
    """What the user can say about their logs (the CLI's flags)."""

    collection: str | None = None  # overrides the collection of every imported run
    task: str | None = None  # overrides the task of every imported run
    task_key: str = "task"  # the MLflow tag or param (TensorBoard: hparam) that names the task
    epoch_metric: str | None = None  # the epoch scalar; default: the framework's own
    eval_pattern: re.Pattern = re.compile(r"^(eval|val|valid|validation)([/_]|$)")
    checkpoint_every: int | None = None  # save interval for eval-derived checkpoints; 0: none
    timezone: str | None = None  # text logs: the zone of their local times
    text_patterns: dict = field(default_factory=dict)  # text logs: overrides of the line patterns
    samples_run: str | None = None  # cluster GPU logs: the run their samples belong to (sample_attribution.py)


UNSPECIFIED_TASK = "unspecified"


@dataclass
class Event:
    """One contract event before it is written."""

    event: str
    ts_us: int
    source_path: str
    approximation: str | None = None  # None: the time is exact
    fields: dict = field(default_factory=dict)  # step, epoch, status, ...

    def sort_key(self) -> tuple:
        step = self.fields.get("step")
        return (self.ts_us, EVENT_ORDER[self.event], -1 if step is None else step, self.source_path)


@dataclass
class Run:
    """One imported run: its identity, run-level fields and its events."""

    run_id: str
    source_format: str  # tensorboard | mlflow | text | wandb
    collection: str
    task: str
    config: dict = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    run_fields: dict = field(default_factory=dict)  # extra fields of the run_start line

    def add(self, event: str, ts_us: int, source_path: str | Path, approximation: str | None = None, **fields) -> None:
        self.events.append(Event(event, ts_us, str(source_path), approximation, fields))

    def lines(self) -> list[dict]:
        """The run's events as ordered contract lines."""
        out = []
        for ev in sorted(self.events, key=Event.sort_key):
            line: dict = {"run_id": self.run_id, "event": ev.event, "ts": format_ts(ev.ts_us)}
            if ev.event == "run_start":
                line.update(collection=self.collection, task=self.task, config=self.config)
                line.update(self.run_fields)
            line.update(ev.fields)
            line.update(
                source_format=self.source_format,
                source_path=ev.source_path,
                is_approximate=ev.approximation is not None,
                approximation=ev.approximation,
            )
            out.append(line)
        return out

    @property
    def approximate_count(self) -> int:
        return sum(ev.approximation is not None for ev in self.events)


@dataclass(frozen=True)
class Reject:
    """An input problem, named: which file, which reason code, and the details."""

    source_format: str
    source_path: str
    reason: str
    detail: str

    def __post_init__(self) -> None:
        if self.reason not in REJECT_REASONS:
            raise ValueError(f"unknown reject reason {self.reason!r}")

    def as_dict(self) -> dict:
        return {
            "kind": "import_reject",
            "source_format": self.source_format,
            "source_path": self.source_path,
            "reason": self.reason,
            "detail": self.detail,
        }


@dataclass
class SampleLog:
    """The utilization samples of one cluster GPU log (nvidia-smi CSV, DCGM dump), before they
    belong to a run: `samples` are `sample` events, `host` the machine the file names (or None)."""

    source_format: str  # nvidia_smi | dcgm
    path: Path
    host: str | None
    samples: list[Event] = field(default_factory=list)

    @property
    def shown(self) -> str:
        return display_path(self.path)

    @property
    def span(self) -> tuple[int, int]:
        times = [sample.ts_us for sample in self.samples]
        return min(times), max(times)


@dataclass
class ProfilerReport:
    """The sections of one framework profiler's report (Lightning's profilers, a Hugging Face
    trainer_state.json), before they belong to a run: the report has no timestamps, so the runner
    gives it the run whose folder holds it (report_attribution.py).

    label: the report in words ("Lightning's SimpleProfiler report"); sections: section -> seconds,
    no second in two; section_sources: how each was summed; rank: the rank its file name gives;
    order: among the reports of one run, the lowest is written (the lowest rank, the latest state)."""

    source_format: str
    path: Path
    label: str
    sections: dict[str, float]
    section_sources: dict[str, str]
    rank: int | None = None
    order: tuple = ()

    @property
    def shown(self) -> str:
        return display_path(self.path)


@dataclass
class Outcome:
    """What importing one source gave: runs, rejects and notes (skips that are not errors), the
    samples of a cluster GPU log, which the runner gives a run (sample_attribution.py), the
    reports of framework profilers, which it gives a run too (report_attribution.py), and profiler
    traces, which it copies beside a run (trace_placement.py)."""

    runs: list[Run] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sample_logs: list[SampleLog] = field(default_factory=list)
    reports: list[ProfilerReport] = field(default_factory=list)
    traces: list[tuple[Path, Path]] = field(default_factory=list)  # (trace, the PATH's folder it was found below)

    def extend(self, other: Outcome) -> None:
        self.runs.extend(other.runs)
        self.rejects.extend(other.rejects)
        self.notes.extend(other.notes)
        self.sample_logs.extend(other.sample_logs)
        self.reports.extend(other.reports)
        self.traces.extend(other.traces)


# ---------------------------------------------------------------------------------------------
# names and files

_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]+")


def safe_component(text: str) -> str:
    cleaned = _UNSAFE.sub("_", text).strip("._") or "_"
    return cleaned[:100]


def run_file(out: Path, run: Run) -> Path:
    """`<out>/<source_format>/<run id, one folder per '/' part>.jsonl`."""
    parts = [safe_component(part) for part in run.run_id.split("/") if part]
    if "/".join(parts) != run.run_id:  # sanitising changed it: keep distinct ids apart
        parts[-1] += "-" + hashlib.sha1(run.run_id.encode()).hexdigest()[:8]
    return out.joinpath(run.source_format, *parts[:-1], parts[-1] + ".jsonl")


def dump_line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _create_temporary(folder: Path) -> tuple[int, str]:
    """A new hidden file in folder, opened for writing, with the mode `open(path, "w")` gives:
    0o666 less the umask (tempfile.mkstemp would make it 0o600 whatever the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = os.path.join(folder, f".import-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {folder}")


def write_atomic(path: Path, text: str) -> bool:
    """Write text to path through a temporary file, then rename it over path (a reader sees the
    old file or the new one, never a part); returns False when it was already so. The file gets
    the mode a plain `open(path, "w")` would create it with (0o666 less the umask)."""
    data = text.encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _create_temporary(path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True


def write_run(out: Path, run: Run) -> Path:
    path = run_file(out, run)
    write_atomic(path, "".join(dump_line(line) + "\n" for line in run.lines()))
    return path


def write_rejects(out: Path, rejects: list[Reject], inputs: list[Path]) -> Path | None:
    """Merge this import's rejects into `<out>/_import_rejects.jsonl`.

    Rejects from an earlier import of other inputs are kept; those under this import's inputs are
    replaced, so importing the same sources again gives the same file. No rejects at all: no file.
    """
    path = out / REJECTS_FILE
    kept: list[dict] = []
    if path.exists():
        roots = [os.path.normpath(str(p)) for p in inputs]
        for raw in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(raw)
            except json.JSONDecodeError:
                continue
            source = os.path.normpath(str(record.get("source_path", "")))
            if not any(source == root or source.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
                kept.append(record)
    records = kept + [r.as_dict() for r in rejects]
    unique = {dump_line(r): r for r in records}
    ordered = [unique[key] for key in sorted(unique, key=lambda k: (unique[k]["source_path"], k))]
    if not ordered:
        path.unlink(missing_ok=True)
        return None
    write_atomic(path, "".join(dump_line(r) + "\n" for r in ordered))
    return path


def display_path(path: Path) -> str:
    """The path as the user gave it (relative stays relative), normalised."""
    return os.path.normpath(str(path))
