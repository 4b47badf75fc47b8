"""One session of a W&B run: the records of one `run-<id>.wandb` file, kept as far as runlens needs them.

Each record is parsed with W&B's own protobuf; this module is the only one that imports it. What a
session keeps, record type by record type: docs/importers.md, "W&B: the records of one session".
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf.message import DecodeError
from wandb.proto import wandb_internal_pb2

from .checkpoints import checkpoint_step
from .common import us_from_seconds
from .system_metrics import wandb_measure
from .wandb_framing import Fault, RecordReader

CHECKPOINT_TYPES = ("model", "checkpoint")
_ALIAS_STEP = re.compile(r"^(?:checkpoint_global_step|step|global_step|checkpoint|ckpt)[-_=]?(\d+)$")
_TIMED = ("stats", "output", "output_raw")


@dataclass
class Artifact:
    """A checkpoint logged as an artifact: its step, and where it lies among the timed records."""

    step: int
    name: str
    before_us: int | None  # the latest time of the timed records before it in the stream
    after_us: int | None = None  # the time of the first timed record after it
    gap: int = 0  # how many timed records came before it: artifacts with the same gap were logged together


@dataclass
class Session:
    path: Path
    shown: str
    wandb_id: str = ""
    project: str = ""
    group: str = ""
    job_type: str = ""
    name: str = ""
    sweep_id: str = ""
    start_us: int | None = None  # the run record's start_time
    started_at_us: int | None = None  # the environment record's started_at
    runtime_before: int = 0  # the runtime the run record says the run resumed at
    root: str = ""
    config: dict = field(default_factory=dict)
    resources: dict | None = None
    step_metric: str | None = None
    rows: list[tuple[int, dict]] = field(default_factory=list)  # (ts_us, numeric values) per history row
    artifacts: list[Artifact] = field(default_factory=list)
    stats: list[tuple[int, dict[str, float]]] = field(default_factory=list)  # (ts_us, system metrics runlens reads)
    first_us: int | None = None  # the first and last time of any timed record
    last_us: int | None = None
    timed: int = 0
    exit_code: int | None = None  # None: no exit record
    exit_runtime: int | None = None
    records: int = 0
    fault: Fault | None = None

    @property
    def has_exit(self) -> bool:
        return self.exit_code is not None

    @property
    def is_empty(self) -> bool:
        return self.start_us is None and self.started_at_us is None and self.first_us is None


def _us(timestamp) -> int:
    return timestamp.seconds * 1_000_000 + timestamp.nanos // 1000


def _json(text: str):
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return text


def _number(text: str) -> float | None:
    """A history value's JSON as a finite number, else None (strings, objects, true, NaN)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _key(item) -> str:
    return ".".join(item.nested_key) if item.nested_key else item.key


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def artifact_step(artifact) -> int | None:
    """The step a checkpoint artifact's names tell, or None (an initial or final model, a dataset)."""
    if artifact.type not in CHECKPOINT_TYPES:
        return None
    metadata = _json(artifact.metadata) if artifact.metadata else {}
    metadata = metadata if isinstance(metadata, dict) else {}
    original = metadata.get("original_filename")
    if isinstance(original, str) and (parsed := checkpoint_step(original, False)):
        return parsed[0]
    for alias in artifact.aliases:
        if match := _ALIAS_STEP.match(alias):
            return int(match.group(1))
    for entry in artifact.manifest.contents:
        for part in Path(entry.path).parts:
            if parsed := checkpoint_step(part, part != Path(entry.path).name):
                return parsed[0]
    step = metadata.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) and step >= 0 else None


class _Reading:
    """Takes the records of one file, one at a time, into its Session."""

    def __init__(self, session: Session, wanted: Callable[[str], bool]) -> None:
        self.s = session
        self.wanted = wanted
        self.waiting: list[Artifact] = []  # artifacts whose next timed record has not come yet
        self.handlers = {
            "run": self._run,
            "environment": self._environment,
            "config": self._config,
            "metric": self._metric,
            "history": self._history,
            "artifact": self._artifact,
            "exit": self._exit,
        }

    def take(self, record) -> None:
        kind = record.WhichOneof("record_type")
        handlers = self.handlers
        if kind in handlers:
            handlers[kind](getattr(record, kind))
        elif kind in _TIMED:
            message = getattr(record, kind)
            if message.HasField("timestamp"):
                self._timed(_us(message.timestamp))
                if kind == "stats":
                    self._stats(_us(message.timestamp), message)

    def _timed(self, us: int) -> None:
        s = self.s
        s.first_us = us if s.first_us is None else min(s.first_us, us)
        s.last_us = us if s.last_us is None else max(s.last_us, us)
        s.timed += 1
        for artifact in self.waiting:
            artifact.after_us = us
        self.waiting = []

    def _stats(self, us: int, stats) -> None:
        """The system metrics of one stats record that are utilization measurements (system_metrics.py)."""
        values = {}
        for item in stats.item:
            if wandb_measure(item.key) is not None:
                value = _number(item.value_json)
                if value is not None:
                    values[item.key] = value
        if values:
            self.s.stats.append((us, values))

    def _run(self, run) -> None:
        s = self.s
        s.wandb_id, s.project, s.group, s.job_type = run.run_id, run.project, run.run_group, run.job_type
        s.name, s.sweep_id, s.runtime_before = run.display_name, run.sweep_id, run.runtime
        if run.HasField("start_time"):
            s.start_us = _us(run.start_time)
        self._config(run.config)

    def _environment(self, env) -> None:
        s = self.s
        if env.HasField("started_at"):
            s.started_at_us = _us(env.started_at)
        s.root = env.root or s.root
        gpus = env.gpu_count or len(env.gpu_nvidia)
        if env.cpu_count or gpus:  # the system metadata was collected (not with x_disable_stats)
            s.resources = {"gpus": gpus}
            gpu_type = env.gpu_type or (env.gpu_nvidia[0].name if env.gpu_nvidia else "")
            if gpu_type:
                s.resources["gpu_type"] = gpu_type

    def _config(self, config) -> None:
        for item in config.update:
            *parents, last = list(item.nested_key) or [item.key]
            if (parents or [last])[0] == "_wandb":
                continue
            target = self.s.config
            for part in parents:
                if not isinstance(target.get(part), dict):
                    target[part] = {}
                target = target[part]
            target[last] = _json(item.value_json)
        for item in config.remove:
            *parents, last = list(item.nested_key) or [item.key]
            target = self.s.config
            for part in parents:
                target = target.get(part) if isinstance(target, dict) else None
            if isinstance(target, dict):
                target.pop(last, None)

    def _metric(self, metric) -> None:
        if metric.glob_name == "*" and metric.step_metric:
            self.s.step_metric = metric.step_metric

    def _history(self, history) -> None:
        row = {}
        for item in history.item:
            key = item.nested_key[0] if len(item.nested_key) == 1 else _key(item)
            if key in ("_timestamp", "_step") or key == self.s.step_metric or self.wanted(key):
                value = _number(item.value_json)
                if value is not None:
                    row[key] = value
        stamp = row.get("_timestamp")
        if stamp is None:
            return
        us = us_from_seconds(stamp)
        self.s.rows.append((us, row))
        self._timed(us)

    def _artifact(self, artifact) -> None:
        step = artifact_step(artifact)
        if step is None:
            return
        found = Artifact(step, artifact.name, self.s.last_us, gap=self.s.timed)
        self.s.artifacts.append(found)
        self.waiting.append(found)

    def _exit(self, exit_record) -> None:
        self.s.exit_code, self.s.exit_runtime = exit_record.exit_code, exit_record.runtime


def read_session(path: Path, shown: str, wanted: Callable[[str], bool]) -> Session:
    """Every record of one run file that runlens uses, of the history the keys `wanted` says (and
    W&B's time, step and step metric); a fault stops the reading (kept in .fault)."""
    session = Session(path, shown)
    reading = _Reading(session, wanted)
    try:
        with path.open("rb") as stream:
            reader = RecordReader(stream)
            for offset, data in reader:
                record = wandb_internal_pb2.Record()
                try:
                    record.ParseFromString(data)
                except DecodeError as error:
                    detail = f"the record at byte {offset} is not a W&B Record ({error}; {session.records} before it)"
                    session.fault = Fault("corrupt_record", detail)
                    break
                session.records += 1
                reading.take(record)
            session.fault = session.fault or reader.fault
    except OSError as error:
        session.fault = Fault("unreadable_wandb_file", f"cannot read: {error.strerror or error}")
    return session
