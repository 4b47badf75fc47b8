"""W&B run files -> runs of contract events: one run per W&B run id, its sessions joined.

The sessions are read by wandb_records.py and joined by run id alone. The mapping, field by field
(run_start, run_end, collection, task, config, markers, and how exact each is), is in
docs/importers.md, "W&B: runs".
"""

from __future__ import annotations

from pathlib import Path

from . import scalars, wandb_files
from .checkpoints import CheckpointFile, checkpoints_in_run
from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, format_ts, us_from_seconds
from .system_metrics import Samples, wandb_measure
from .wandb_records import Session, is_number, read_session

FORMAT = "wandb"
START_FROM_RUN = "run_start taken from the run record's start_time (about 0.2 s after wandb.init began): no started_at"
START_FROM_RECORD = "run_start taken from the first timed W&B record: the stream holds no start time"
END_FROM_RECORD = (
    "run_end taken from the last timed W&B record (history row, console line or system-stats sample): "
    "the exit record has no time, so work after that record is not seen"
)
END_FROM_RUNTIME = (
    "run_end taken from the run's start_time plus the exit record's runtime, which counts whole seconds: "
    "the end lies up to 1 s later"
)
ARTIFACT_BEFORE = (
    "checkpoint time from the model artifact W&B logged when the Trainer saved: the artifact has no time, "
    "so this is the time of the record before it (the Trainer evaluates, logs, then saves)"
)
ARTIFACT_AFTER = (
    "checkpoint time from the model artifact logged right after the save: the artifact has no time, "
    "so this is the time of the first record after it (the metrics logged after the save)"
)
FINAL_EPOCH = " (the run completed, so the last epoch in progress ended)"
KERAS_EPOCH = "epoch/epoch"  # Keras' WandbMetricsLogger: the 0-based epoch that just ended


def _start(session: Session, metadata: dict) -> tuple[int, str | None]:
    if session.started_at_us is not None:
        return session.started_at_us, None
    started = wandb_files.parse_time(metadata.get("startedAt"))
    if started is not None:
        return us_from_seconds(started), None
    if session.start_us is not None:
        return session.start_us, START_FROM_RUN
    return session.first_us, START_FROM_RECORD


def _end(session: Session, start_us: int) -> tuple[int, str]:
    """When a session that has an exit record ended, and how that is known."""
    end_us, reason = session.last_us if session.last_us is not None else start_us, END_FROM_RECORD
    if session.start_us is not None and session.exit_runtime is not None:
        by_runtime = session.start_us + (session.exit_runtime - session.runtime_before) * 1_000_000
        if by_runtime > end_us:
            end_us, reason = by_runtime, END_FROM_RUNTIME
    return end_us, reason


def _drop_copies(sessions: list[Session], outcome: Outcome) -> list[Session]:
    """A session copied into a second folder (wandb/latest-run copied as a folder) is read once:
    the copy with the most records, else the one in a folder named as W&B names them."""
    kept: dict[tuple, Session] = {}
    for session in sorted(sessions, key=lambda s: (-s.records, not wandb_files.is_canonical(s.path), s.shown)):
        key = (session.wandb_id, session.start_us, session.started_at_us)
        if key in kept:
            outcome.notes.append(f"{session.shown}: a copy of {kept[key].shown} (same run and start): read once")
            continue
        kept[key] = session
    return list(kept.values())


def _series(sessions: list[Session]) -> tuple[scalars.Series, str | None]:
    """The history of every session as scalar series, stepped by the run's step metric (else `_step`)."""
    step_metric = next((s.step_metric for s in reversed(sessions) if s.step_metric), None)
    series: scalars.Series = {}
    for session in sessions:
        for ts_us, row in session.rows:
            step = row.get(step_metric) if step_metric else None
            step = step if is_number(step) else row.get("_step")
            if not is_number(step):
                continue
            for key, value in row.items():
                if not key.startswith("_") and key != step_metric:
                    series.setdefault(key, []).append(scalars.Point(ts_us, int(step), float(value), session.shown))
    for points in series.values():
        points.sort(key=lambda p: (p.ts_us, p.step))
    return series, step_metric


def _framework(series: scalars.Series, step_metric: str | None) -> str:
    keys = set(series) | {step_metric}
    if "trainer/global_step" in keys:
        return "lightning"
    if "train/global_step" in keys:
        return "hf"
    if KERAS_EPOCH in keys:
        return "keras"
    return "plain"


def _task(run_config: dict, last: Session, options: Options) -> tuple[str, str]:
    if options.task:
        return options.task, "option"
    value = run_config.get(options.task_key)
    if value not in (None, "", [], {}):
        return (value if isinstance(value, str) else str(value)), f"config:{options.task_key}"
    if last.job_type:
        return last.job_type, "job_type"
    if last.name:
        return last.name, "name"
    return UNSPECIFIED_TASK, "default"


def _collection(last: Session, options: Options) -> str:
    if options.collection:
        return options.collection
    project = last.project or "wandb"
    if last.group:
        return f"{project}/{last.group}"
    if last.sweep_id:
        return f"{project}/sweep-{last.sweep_id}"
    return project


def _epoch_markers(series: scalars.Series, framework: str, completed: bool, options: Options) -> list[scalars.Marker]:
    if framework == "keras":  # one row per epoch, stepped by the epoch index it logs
        points = [scalars.Point(p.ts_us, round(p.value), p.value, p.source_path) for p in series[KERAS_EPOCH]]
        return scalars.epoch_ends({KERAS_EPOCH: points}, "keras", options.eval_pattern)
    if framework != "plain":
        return scalars.epoch_ends(series, framework, options.eval_pattern, options.epoch_metric, completed)
    tag = options.epoch_metric or "epoch"
    if tag not in series:
        return []
    style = scalars.detect_style({tag: series[tag]}, tag)
    markers = scalars.epoch_ends({tag: series[tag]}, style, options.eval_pattern, tag, completed)
    last = series[tag][-1]  # the series are in time order
    if style == "lightning" and completed and all(m.epoch != round(last.value) + 1 for m in markers):
        reason = f"epoch_end taken from the last log of the epoch ({tag!r} = {round(last.value)})" + FINAL_EPOCH
        markers.append(scalars.Marker(last.ts_us, None, round(last.value) + 1, last.source_path, reason))
    return [scalars.Marker(m.ts_us, None, m.epoch, m.source_path, m.reason) for m in markers]


def _artifact_checkpoints(sessions: list[Session], framework: str, outcome: Outcome) -> list[tuple]:
    """(ts_us, step, source, reason) of the checkpoints logged as artifacts, one per step."""
    found: dict[int, tuple] = {}
    for session in sessions:
        by_gap: dict[int, list] = {}
        for artifact in session.artifacts:
            by_gap.setdefault(artifact.gap, []).append(artifact)
        for _, artifacts in sorted(by_gap.items()):
            if len(artifacts) > 1:  # logged together (log_model=True logs them all at the end): no time
                steps = ", ".join(str(a.step) for a in artifacts)
                outcome.notes.append(
                    f"{session.shown}: checkpoint artifacts of steps {steps} were logged together, "
                    "not as each was saved: their times are unknown, not used"
                )
                continue
            (artifact,) = artifacts
            before = artifact.before_us if artifact.before_us is not None else session.first_us
            after = artifact.after_us if artifact.after_us is not None else before
            if framework == "hf" or after is None:
                ts_us, reason = before, ARTIFACT_BEFORE
            else:
                ts_us, reason = max(after, before or after), ARTIFACT_AFTER
            if ts_us is not None and artifact.step not in found:
                found[artifact.step] = (ts_us, artifact.step, session.shown, reason)
    return sorted(found.values())


def _checkpoint_files(sessions, project, run_config, span, outcome) -> list[CheckpointFile]:
    folders: list[Path] = []
    deep: list[bool] = []
    for session in sessions:
        for folder, is_deep in zip(
            *wandb_files.checkpoint_folders(session.path, project, run_config, session.root), strict=True
        ):
            if folder not in folders:
                folders.append(folder)
                deep.append(is_deep)
    kept, rejects = checkpoints_in_run(folders, deep, span[0], span[1], FORMAT)
    outcome.rejects.extend(rejects)
    return kept


def _resources(sessions: list[Session], metadata: dict[str, dict]) -> dict | None:
    """The GPUs of the latest session that names them: W&B's environment record, else its metadata file."""
    for session in reversed(sessions):
        if session.resources is not None:
            return session.resources
        found = metadata[session.shown]
        if is_number(found.get("gpu_count")) and found["gpu_count"] >= 0:
            resources = {"gpus": int(found["gpu_count"])}
            if isinstance(found.get("gpu"), str) and found["gpu"]:
                resources["gpu_type"] = found["gpu"]
            return resources
    return None


def _save_every(run_config: dict, options: Options) -> int | None:
    if options.checkpoint_every is not None:
        return options.checkpoint_every
    strategy = str(run_config.get("save_strategy", "")).lower().rsplit(".", 1)[-1]
    if strategy == "no":
        return 0
    steps = run_config.get("save_steps")
    if strategy == "steps" and is_number(steps) and steps >= 1:
        return int(steps)
    return None


def _wanted(options: Options):
    """The history keys that can make a marker: epoch counts and epoch-level metrics, the
    frameworks' global steps, evaluations (`--eval-metric`), `--epoch-metric`."""

    def wanted(key: str) -> bool:
        framework_key = "epoch" in key or "global_step" in key or key == options.epoch_metric
        return framework_key or bool(options.eval_pattern.search(key))

    return wanted


def _read_sessions(files: list[Path], options: Options, outcome: Outcome) -> list[Session]:
    """The sessions with something in them; every fault, and every file without a record, is a reject."""
    sessions = []
    wanted = _wanted(options)
    for path in files:
        session = read_session(path, display_path(path), wanted)
        if session.fault is not None:
            outcome.rejects.append(Reject(FORMAT, session.shown, session.fault.reason, session.fault.detail))
        if session.is_empty:
            if session.fault is None:
                detail = "no record after the W&B header (a process killed with SIGKILL leaves this)"
                outcome.rejects.append(Reject(FORMAT, session.shown, "empty_run", detail))
            continue
        sessions.append(session)
    return sessions


def _add_sessions(run: Run, sessions: list[Session], starts: dict, outcome: Outcome) -> tuple[int, int]:
    """Each session's run_start and, where it has an exit record, its run_end; returns the run's
    first and last moment."""
    ends = []
    for session in sessions:
        start_us, reason = starts[session.shown]
        run.add("run_start", start_us, session.shown, reason)
        if session.has_exit:
            end_us, reason = _end(session, start_us)
            ends.append(end_us)
            status = "completed" if session.exit_code == 0 else "failed"
            run.add("run_end", end_us, session.shown, reason, status=status)
    last_heard = max(s.last_us or starts[s.shown][0] for s in sessions)
    if not sessions[-1].has_exit:
        run.run_fields["last_heard_from"] = format_ts(last_heard)
        outcome.notes.append(
            f"W&B run {run.run_id} has no exit record (still running, or killed): imported without run_end "
            f"(incomplete), last heard from at {format_ts(last_heard)}"
        )
    return starts[sessions[0].shown][0], max([last_heard, *ends])


def _add_checkpoints(run: Run, sessions, series, framework, run_config, span, options, outcome) -> None:
    """Checkpoint files (exact), else checkpoints logged as artifacts, else evaluations."""
    files_found = _checkpoint_files(sessions, sessions[-1].project or "wandb", run_config, span, outcome)
    for found in files_found:
        run.add("checkpoint", found.mtime_us, display_path(found.path), None, step=found.step)
    artifacts = [] if files_found else _artifact_checkpoints(sessions, framework, outcome)
    for ts_us, step, source, reason in artifacts:
        run.add("checkpoint", ts_us, source, reason, step=step)
    if not files_found and not artifacts:
        every = _save_every(run_config, options)
        for marker in scalars.eval_checkpoints(series, framework, options.eval_pattern, every):
            run.add("checkpoint", marker.ts_us, marker.source_path, marker.reason, step=marker.step)


def _add_train_starts(run: Run, sessions: list[Session], starts: dict, series, framework: str, options) -> None:
    """Each session's train_start from its first logged training steps (scalars.training_start),
    paced from step 0 in the first session and, where the framework's step counts training steps,
    from the latest checkpoint before a resumed session's start. No step is written: which
    checkpoint a resume restored is not in W&B's records, so runlens infers it (said so)."""
    saved = [event for event in run.events if event.event == "checkpoint" and "step" in event.fields]
    checkpoints = [(event.ts_us, event.fields["step"]) for event in saved]
    for index, session in enumerate(sessions):
        start = starts[session.shown][0]
        end = starts[sessions[index + 1].shown][0] if index + 1 < len(sessions) else None
        from_step = 0
        if index > 0:
            earlier = [step for ts_us, step in checkpoints if ts_us < start]
            from_step = max(earlier) if earlier and framework in ("lightning", "hf") else None
        began = scalars.training_start(series, framework, options.eval_pattern, (start, end), from_step, session.shown)
        if began is not None:
            run.add("train_start", began.ts_us, began.source_path, began.reason)


def _add_samples(run: Run, sessions: list[Session]) -> None:
    """Every stats record's utilization measurements as sample lines at the record's time: one per
    GPU and one for the host (W&B writes a tick as two records, the system's, then the GPUs')."""
    samples = Samples()
    for session in sessions:
        for ts_us, values in session.stats:
            for key, value in values.items():
                samples.add(ts_us, session.shown, wandb_measure(key), value)
    samples.write(run)


def import_run(files: list[Path], options: Options) -> Outcome:
    """Import the sessions (run files) of one W&B run id."""
    outcome = Outcome()
    sessions = _read_sessions(files, options, outcome)
    if not sessions:
        return outcome
    metadata = {s.shown: wandb_files.metadata(wandb_files.run_folder(s.path)) for s in sessions}
    starts = {s.shown: _start(s, metadata[s.shown]) for s in _drop_copies(sessions, outcome)}
    sessions = sorted((s for s in sessions if s.shown in starts), key=lambda s: (starts[s.shown][0], s.shown))
    last = sessions[-1]

    run_config: dict = {}
    for session in sessions:  # an online run's config.yaml, then the stream's config over it
        run_config.update(wandb_files.config(wandb_files.run_folder(session.path)))
        run_config.update(session.config)
    task, task_source = _task(run_config, last, options)
    series, step_metric = _series(sessions)
    framework = _framework(series, step_metric)
    wandb_id = last.wandb_id or wandb_files.run_id_of(last.path)
    run = Run(
        run_id=f"{last.project or 'wandb'}/{wandb_id}",
        source_format=FORMAT,
        collection=_collection(last, options),
        task=task,
        config=run_config,
        run_fields={
            "source_run_id": wandb_id,
            "source_status": f"exit code {last.exit_code}" if last.has_exit else "no exit record",
            "framework": framework,
            "task_source": task_source,
        },
    )
    resources = _resources(sessions, metadata)
    if resources is not None:
        run.run_fields["resources"] = resources
    span = _add_sessions(run, sessions, starts, outcome)
    _add_checkpoints(run, sessions, series, framework, run_config, span, options, outcome)
    _add_train_starts(run, sessions, starts, series, framework, options)
    for marker in _epoch_markers(series, framework, last.exit_code == 0, options):
        fields = {"epoch": marker.epoch}
        if marker.step is not None:
            fields["step"] = marker.step
        run.add("epoch_end", marker.ts_us, marker.source_path, marker.reason, **fields)
    _add_samples(run, sessions)
    outcome.runs.append(run)
    return outcome
