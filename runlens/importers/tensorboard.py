"""TensorBoard event files (`events.out.tfevents.*`) -> runs of contract events.

One run per folder of event files (which files those are, and which folder is a run:
tensorboard_files.py), read with TensorBoard's own record reader, driven here directly so that a
corrupt or truncated record is named. What each event is made of, and how exact it is:
docs/importers.md, "TensorBoard".
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from tensorboard import data_compat
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.tensorflow_stub import errors as tf_errors
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New
from tensorboard.util import tensor_util

from . import scalars
from .checkpoints import checkpoints_in_run
from .common import UNSPECIFIED_TASK, Options, Outcome, Reject, Run, display_path, us_from_seconds
from .system_metrics import Samples, device_stats_samples, is_device_stats

FORMAT = "tensorboard"
START_REASON = "run_start taken from the first TensorBoard event (the writer's creation): set-up before it is not seen"
RESUME_REASON = (
    "run_start of a resumed session taken from the first event of a later TensorBoard file whose steps went back "
    "(a new writer after a restart): set-up before it is not seen"
)
END_REASON = "run_end taken from the last TensorBoard event: work after the last logged scalar is not seen"
NO_STATUS = "; TensorBoard records no run status, so the run is taken as completed"


class FileRead:
    """What one event file held: scalar points, text summaries, first and last wall times."""

    def __init__(self, path: Path, shown: str, prefix: str = "") -> None:
        self.path = path
        self.shown = shown
        self.prefix = prefix
        self.series: scalars.Series = {}
        self.texts: dict[str, str] = {}
        self.first_us: int | None = None
        self.last_us: int | None = None
        self.events = 0
        self.rejects: list[Reject] = []

    def read(self) -> FileRead:
        try:
            reader = PyRecordReader_New(str(self.path), 0, None, None)
        except (OSError, tf_errors.OpError) as error:
            self._reject("unreadable_event_file", f"cannot open: {error}")
            return self
        try:
            while True:
                try:
                    reader.GetNext()
                except tf_errors.OutOfRangeError:
                    break
                except tf_errors.DataLossError as error:
                    truncated = "truncated record" in str(error)
                    where = f"after {self.events} good record(s)"
                    if self.events == 0:
                        self._reject("unreadable_event_file", f"first record unreadable ({_short(error)})")
                    elif truncated:
                        self._reject("truncated_record", f"file ends inside record {self.events + 1} ({where})")
                    else:
                        self._reject("corrupt_record", f"record {self.events + 1} {_short(error)}; {where}")
                    break
                try:
                    event = event_pb2.Event.FromString(reader.record())
                except Exception as error:  # protobuf's DecodeError and friends
                    reason = "unreadable_event_file" if self.events == 0 else "corrupt_record"
                    self._reject(reason, f"record {self.events + 1} is not an Event: {_short(error)}")
                    break
                self.events += 1
                self._take(event)
        except OSError as error:
            self._reject("unreadable_event_file", f"read failed: {error}")
        finally:
            reader.file_handle.close()
        return self

    def _reject(self, reason: str, detail: str) -> None:
        self.rejects.append(Reject(FORMAT, self.shown, reason, detail))

    def _take(self, event: event_pb2.Event) -> None:
        if event.wall_time <= 0:
            return
        us = us_from_seconds(event.wall_time)
        self.first_us = us if self.first_us is None else min(self.first_us, us)
        self.last_us = us if self.last_us is None else max(self.last_us, us)
        if not event.HasField("summary"):
            return
        for raw in event.summary.value:
            value = data_compat.migrate_value(raw)
            plugin = value.metadata.plugin_data.plugin_name
            if plugin == "scalars" or value.HasField("simple_value"):
                try:
                    number = float(tensor_util.make_ndarray(value.tensor).item())
                except (ValueError, TypeError):
                    continue
                point = scalars.Point(us, int(event.step), number, self.shown)
                self.series.setdefault(self.prefix + value.tag, []).append(point)
            elif plugin == "text" and value.tag not in self.texts:
                try:
                    text = tensor_util.make_ndarray(value.tensor).item()
                except (ValueError, TypeError):
                    continue
                if isinstance(text, bytes):
                    self.texts[value.tag] = text.decode("utf-8", "replace")


def _short(error: Exception) -> str:
    return str(error).strip().splitlines()[-1][:200] if str(error).strip() else type(error).__name__


def _config(folder: Path, texts: dict[str, str]) -> tuple[dict, dict]:
    """(config, trainer args): Lightning's hparams.yaml, or the HF Trainer's args text summary."""
    hparams = folder / "hparams.yaml"
    config: dict = {}
    if hparams.is_file():
        try:
            loaded = yaml.safe_load(hparams.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                config = loaded
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            config = {}
    args: dict = {}
    for tag, text in texts.items():
        if tag.startswith("args"):
            try:
                loaded = json.loads(text.strip().strip("`"))
            except json.JSONDecodeError:
                continue
            if isinstance(loaded, dict):
                args = loaded
    return (config or args), args


def _checkpoint_folders(folder: Path) -> tuple[list[Path], list[bool]]:
    """Where checkpoints of this run may lie: inside the run folder, and for the HF Trainer the
    output_dir that holds `runs/<name>/` (its `checkpoint-S/` folders)."""
    folders, deep = [folder], [True]
    if folder.parent.name == "runs":
        folders.append(folder.parent.parent)
        deep.append(False)
    return folders, deep


def _save_every(args: dict, options: Options) -> int | None:
    if options.checkpoint_every is not None:
        return options.checkpoint_every
    strategy = str(args.get("save_strategy", "")).lower().rsplit(".", 1)[-1]
    if strategy == "no":
        return 0
    if strategy == "steps" and isinstance(args.get("save_steps"), int | float) and args["save_steps"] >= 1:
        return int(args["save_steps"])
    return None


def sessions_of(timed: list[FileRead]) -> list[list[FileRead]]:
    """The run's sessions, each a list of event files: a file starts a new one when it begins after
    every earlier file ended and its first step is at or below a step already logged (a training
    resumed from a checkpoint writes a new file from the restored step on)."""
    sessions: list[list[FileRead]] = []
    last_us, top_step = None, None
    for read in sorted(timed, key=lambda r: (r.first_us, r.shown)):
        steps = [point.step for points in read.series.values() for point in points]
        first_step = min(steps, default=None)
        resumed = (
            sessions
            and read.first_us > last_us
            and first_step is not None
            and top_step is not None
            and first_step <= top_step
        )
        if not sessions or resumed:
            sessions.append([])
        sessions[-1].append(read)
        last_us = read.last_us if last_us is None else max(last_us, read.last_us)
        top_step = max([step for step in (top_step, *steps) if step is not None], default=None)
    return sessions


def import_run(folder: Path, files: list[Path], root: Path, options: Options) -> Outcome:
    """Import the event files of one run folder found below root."""
    outcome = Outcome()
    reads = []
    for path in sorted(files):
        prefix = "validation/" if path.parent.name == "validation" and path.parent.parent == folder else ""
        read = FileRead(path, display_path(path), prefix).read()
        outcome.rejects.extend(read.rejects)
        reads.append(read)
    timed = [r for r in reads if r.first_us is not None]
    if not timed:
        if not outcome.rejects:
            outcome.rejects.append(Reject(FORMAT, display_path(folder), "empty_run", "no event with a wall time"))
        return outcome

    series: scalars.Series = {}
    texts: dict[str, str] = {}
    for read in reads:
        for tag, points in read.series.items():
            series.setdefault(tag, []).extend(points)
        texts.update({k: v for k, v in read.texts.items() if k not in texts})
    config, args = _config(folder, texts)
    device_stats = {tag: points for tag, points in series.items() if is_device_stats(tag)}
    series = {tag: points for tag, points in series.items() if tag not in device_stats}  # markers: training scalars
    style = scalars.detect_style(series, options.epoch_metric)

    root_name = Path(display_path(root)).resolve().name or "tensorboard"
    relative = folder.relative_to(root).as_posix() if folder != root else ""
    run_id = f"{root_name}/{relative}" if relative else root_name
    if options.task:
        task, task_source = options.task, "option"
    elif config.get(options.task_key) or args.get(options.task_key):
        task, task_source = str(config.get(options.task_key) or args[options.task_key]), f"hparam:{options.task_key}"
    else:
        task, task_source = UNSPECIFIED_TASK, "default"
    run = Run(
        run_id=run_id,
        source_format=FORMAT,
        collection=options.collection or root_name,
        task=task,
        config=config,
        run_fields={
            "source_run_id": display_path(folder),
            "source_status": None,
            "framework": style,
            "task_source": task_source,
        },
    )

    first = min(timed, key=lambda r: (r.first_us, r.shown))
    last = max(timed, key=lambda r: (r.last_us, r.shown))
    start_us, end_us = first.first_us, last.last_us
    sessions = sessions_of(timed)
    session_starts = [min(read.first_us for read in session) for session in sessions]
    for index, session in enumerate(sessions):
        opened = min(session, key=lambda r: (r.first_us, r.shown))
        run.add("run_start", session_starts[index], opened.shown, RESUME_REASON if index else START_REASON)
        following = session_starts[index + 1] if index + 1 < len(sessions) else None
        # paced from step 0 in the first session; a resumed one's restored step is not known
        began = scalars.training_start(
            series, style, options.eval_pattern, (session_starts[index], following), 0 if index == 0 else None
        )
        if began is not None:
            run.add("train_start", began.ts_us, began.source_path, began.reason)

    folders, deep = _checkpoint_folders(folder)
    files_found, rejects = checkpoints_in_run(folders, deep, start_us, end_us, FORMAT)
    outcome.rejects.extend(rejects)
    for found in files_found:
        run.add("checkpoint", found.mtime_us, display_path(found.path), None, step=found.step)
    if not files_found:
        every = _save_every(args, options)
        for marker in scalars.eval_checkpoints(series, style, options.eval_pattern, every):
            run.add("checkpoint", marker.ts_us, marker.source_path, marker.reason, step=marker.step)

    for marker in scalars.epoch_ends(series, style, options.eval_pattern, options.epoch_metric):
        fields = {"epoch": marker.epoch}
        if marker.step is not None:
            fields["step"] = marker.step
        run.add("epoch_end", marker.ts_us, marker.source_path, marker.reason, **fields)

    end_source, end_reason = last.shown, END_REASON
    if files_found and files_found[-1].mtime_us > end_us:
        end_us = files_found[-1].mtime_us
        end_source = display_path(files_found[-1].path)
        end_reason = "run_end taken from the last checkpoint file, written after the last TensorBoard event"
    finished_logged = any(tag.endswith("train_runtime") for tag in series)
    if finished_logged:
        end_reason += "; the Trainer logged its end-of-training summary, so the run completed"
        run.run_fields["source_status"] = "train_runtime logged"
    else:
        end_reason += NO_STATUS
    run.add("run_end", end_us, end_source, end_reason, status="completed")
    samples = Samples()
    device_stats_samples(device_stats, samples)
    samples.write(run)
    outcome.runs.append(run)
    return outcome
