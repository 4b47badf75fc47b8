"""One MLflow run, whichever store it came from, -> a run of contract events.

The mapping, field by field (times, status, collection, task, config, markers, and how exact each
is), is in docs/importers.md, "MLflow".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import scalars
from .checkpoints import find_checkpoints
from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, format_ts, us_from_millis
from .system_metrics import Samples, is_mlflow_system, mlflow_measure, mlflow_reads

FORMAT = "mlflow"
STATUS_BY_NUMBER = {1: "RUNNING", 2: "SCHEDULED", 3: "FINISHED", 4: "FAILED", 5: "KILLED"}
ENDED = {"FINISHED": "completed", "FAILED": "failed", "KILLED": "failed"}
KERAS_AUTOLOG = {"keras", "tensorflow", "tf.keras"}
TASK_KEYS = ("dataset", "data")  # tags or params that name what a run trained on, after --task-key's
DEFAULT_EXPERIMENT = "Default"  # the experiment MLflow puts a run in when it is given none: no task
ARTIFACT_REASON = (
    "checkpoint time from the artifact copy's modification time: MLflow stores a copy, at or after the save"
)


@dataclass
class MlflowRun:
    """A run as either store holds it."""

    run_uuid: str
    name: str
    experiment_id: str
    experiment_name: str | None
    status: str
    start_ms: int | None
    end_ms: int | None
    source_path: str  # meta.yaml of a file-store run, or the sqlite database
    params: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    metrics: scalars.Series = field(default_factory=dict)
    artifact_dir: Path | None = None


def normalise_status(raw) -> str:
    if isinstance(raw, int) or (isinstance(raw, str) and raw.isdigit()):
        return STATUS_BY_NUMBER.get(int(raw), f"UNKNOWN({raw})")
    return str(raw or "UNKNOWN").upper().removeprefix("RUNSTATUS.")


def _task(run: MlflowRun, options: Options) -> tuple[str, str]:
    """The run's task and where it came from, in the order docs/importers.md gives: --task, the tag
    then the param that --task-key names, those of TASK_KEYS, the experiment's name (not MLflow's
    own default experiment), else unspecified."""
    if options.task:
        return options.task, "option"
    for key in dict.fromkeys((options.task_key, *TASK_KEYS)):
        if run.tags.get(key):
            return run.tags[key], f"tag:{key}"
        if run.params.get(key):
            return run.params[key], f"param:{key}"
    if run.experiment_name and run.experiment_name != DEFAULT_EXPERIMENT:
        return run.experiment_name, "experiment"
    return UNSPECIFIED_TASK, "default"


def _save_every(run: MlflowRun, options: Options) -> int | None:
    if options.checkpoint_every is not None:
        return options.checkpoint_every
    strategy = run.params.get("save_strategy", "").lower().rsplit(".", 1)[-1]
    if strategy == "no":
        return 0
    if strategy == "steps" and run.params.get("save_steps", "").isdigit():
        return int(run.params["save_steps"]) or None
    return None


def run_id_for(run: MlflowRun) -> str:
    return f"{run.name}-{run.run_uuid[:8]}" if run.name else run.run_uuid


def _training_metrics(mlrun: MlflowRun) -> scalars.Series:
    """The metrics markers are read from: all but the system metrics (`system/...`), whose step
    counts samples, not training steps."""
    return {key: points for key, points in mlrun.metrics.items() if not is_mlflow_system(key)}


def _add_samples(run: Run, mlrun: MlflowRun) -> None:
    """The system metrics that are utilization measurements as sample lines at their timestamps:
    the metrics MLflow logged together (one timestamp) for one device are one line. The CPU
    utilization of the monitor's first tick is no measurement (system_metrics.mlflow_reads)."""
    samples = Samples()
    for key, points in mlrun.metrics.items():
        measure = mlflow_measure(key)
        if measure is not None:
            for point in (point for point in points if mlflow_reads(measure, point.step)):
                # the file store keeps a metric per file: a sample comes from their folder
                same = point.source_path == mlrun.source_path
                source = point.source_path if same else str(Path(point.source_path).parent)
                samples.add(point.ts_us, source, measure, point.value)
    samples.write(run)


def to_run(mlrun: MlflowRun, options: Options, run_id: str) -> Outcome:
    outcome = Outcome()
    status = mlrun.status
    task, task_source = _task(mlrun, options)
    hint = "keras" if mlrun.tags.get("mlflow.autologging", "").lower() in KERAS_AUTOLOG else None
    metrics = _training_metrics(mlrun)
    style = scalars.detect_style(metrics, options.epoch_metric, hint)
    all_points = [p for points in mlrun.metrics.values() for p in points]
    times = [p.ts_us for p in all_points]
    times += [us_from_millis(t) for t in (mlrun.start_ms, mlrun.end_ms) if t is not None]
    if not times:
        outcome.notes.append(f"MLflow run {mlrun.run_uuid}: no start time and no metric, not imported")
        return outcome
    last_heard = max(times)
    run = Run(
        run_id=run_id,
        source_format=FORMAT,
        collection=options.collection or mlrun.experiment_name or f"mlflow experiment {mlrun.experiment_id}",
        task=task,
        config=dict(sorted(mlrun.params.items())),
        run_fields={
            "source_run_id": mlrun.run_uuid,
            "source_status": status,
            "framework": style,
            "task_source": task_source,
        },
    )
    if mlrun.start_ms is not None:
        run.add("run_start", us_from_millis(mlrun.start_ms), mlrun.source_path)
    else:
        run.add("run_start", min(times), mlrun.source_path, "run_start taken from the first metric: no start_time")

    start_us = us_from_millis(mlrun.start_ms) if mlrun.start_ms is not None else min(times)
    began = scalars.training_start(metrics, style, options.eval_pattern, (start_us, None))
    if began is not None:
        run.add("train_start", began.ts_us, began.source_path, began.reason)

    artifacts = find_checkpoints([mlrun.artifact_dir], [True]) if mlrun.artifact_dir else []
    for found in artifacts:
        run.add("checkpoint", found.mtime_us, display_path(found.path), ARTIFACT_REASON, step=found.step)
    if not artifacts:
        for marker in scalars.eval_checkpoints(metrics, style, options.eval_pattern, _save_every(mlrun, options)):
            run.add("checkpoint", marker.ts_us, marker.source_path, marker.reason, step=marker.step)

    finished = status == "FINISHED"
    for marker in scalars.epoch_ends(metrics, style, options.eval_pattern, options.epoch_metric, finished):
        fields = {"epoch": marker.epoch}
        if marker.step is not None:
            fields["step"] = marker.step
        run.add("epoch_end", marker.ts_us, marker.source_path, marker.reason, **fields)
    _add_samples(run, mlrun)

    if status in ENDED:
        if mlrun.end_ms is not None:
            run.add("run_end", us_from_millis(mlrun.end_ms), mlrun.source_path, status=ENDED[status])
        else:
            reason = f"run_end taken from the last metric: the {status} run has no end_time"
            run.add("run_end", last_heard, mlrun.source_path, reason, status=ENDED[status])
    else:
        run.run_fields["last_heard_from"] = format_ts(last_heard)
        outcome.notes.append(
            f"MLflow run {run_id} is {status}: imported without run_end (incomplete), "
            f"last heard from at {format_ts(last_heard)}"
        )
    outcome.runs.append(run)
    return outcome


def import_runs(mlruns: list[MlflowRun], rejects: list[Reject], options: Options) -> Outcome:
    """The runs one store gave (a deleted run is left out, with a note), after its rejects."""
    outcome = Outcome(rejects=list(rejects))
    for mlrun in mlruns:
        if mlrun.status == "DELETED":
            outcome.notes.append(f"MLflow run {mlrun.run_uuid} ({mlrun.source_path}) is deleted: not imported")
            continue
        outcome.extend(to_run(mlrun, options, run_id_for(mlrun)))
    return outcome
