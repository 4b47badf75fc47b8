"""Write training-run event logs in runlens' input contract, with nothing but the standard library.

Install it with ``pip install ./writer`` from a runlens clone (or from git with
``#subdirectory=writer``), or copy this one file into your project. runlens builds and reports
on the files it writes like on any other log; writer/README.md shows every line it writes.

    import runlens_writer

    with runlens_writer.start_run("logs/run-42.jsonl", collection="sweep-3", task="cifar10",
                                  config={"lr": 3e-4, "optimizer": {"name": "adamw"}}) as log:
        model, loader = set_up(...)                      # start-up: run_start to train_start
        log.train_start(step=0)                          # the first training step begins
        for epoch in range(epochs):
            for batch in log.timed(loader):              # section "data_loading"
                with log.section("train_step"):
                    ...
            with log.section("eval"):
                ...
            save_checkpoint(...)
            log.checkpoint(step)                         # after the checkpoint is on disk
            log.epoch_end(epoch=epoch, step=step)
    # leaving the block writes the final profile and run_end (status "failed: <ExceptionType>"
    # when an exception leaves it, which is then re-raised)

Events. One JSON object per line, written in full or not at all: ``run_start`` (collection, task,
config), ``train_start`` (step), ``checkpoint`` (step), ``epoch_end`` (epoch, step), ``run_end``
(status), ``profile`` (wall_seconds, sections) and ``sample`` (a utilization sample: ``sample()``,
or ``start_sampler()`` with nvidia-ml-py installed). Every line starts with ``run_id``, ``event`` and
``ts``: an RFC 3339 UTC time with microseconds from time.time(), strictly increasing within one
RunLog. ``run_id`` is the file's stem unless given.

Training's start. ``train_start(step)`` marks where a session's set-up ends and its first
training step begins (model and data set-up, compilation, warm-up, a checkpoint restored): once
per session, after run_start; on a resume, ``step`` is the step of the checkpoint it restored.
runlens measures each session's start-up as run_start to train_start, and the training redone
after a crash as the time from that checkpoint to the crash.

Sections. ``section(name)`` sums wall seconds per name with a monotonic clock, from run_start on.
The rule for nested or overlapping sections: at every moment the time belongs to the most
recently opened section that is still open (for nested sections, the innermost); the sections
it interrupts resume when it closes. Time is never counted twice, so the sections never add up
to more than ``wall_seconds``, and time in no section is what runlens reports as
``unattributed``. Sections count only while the run is active: one still open at run_end stops
there. ``wall_seconds`` is the time since run_start, plus that of earlier sessions (below).

Profiles. A cumulative ``profile`` is written after every checkpoint and before run_end (and by
``profile()``), and while the run goes on at most every ``profile_every`` seconds (default 60; None:
never), when a section closes: runlens reads the latest, so a crashed run keeps its sections up to
its last profile, and its last line says when it was last alive, within a minute (its goodput's
redone training runs from the checkpoint it resumed from to that line; a live run is not taken for
silent between two checkpoints). Only the profile written at run_end says ``"final": true``; the
others say ``"final": false``, so a run killed without warning stays incomplete.

Durability. The file is opened with O_APPEND; each line is encoded whole before anything is
written, then written with a single ``os.write`` (no user-space buffer: it is in the operating
system at once) under an exclusive ``flock``, so processes appending to one file never interleave
partial lines. run_start, checkpoint (with its profile) and run_end (with its profile) are
fsynced. A crash leaves at most a truncated last line, which runlens rejects as ``invalid_json``;
a RunLog that opens a file ending in such a line starts its own lines on a new one.

Resumes. Opening the same file (and run_id) again and calling run_start writes a new run_start,
so runlens counts a restart and the downtime before it. The new session's profile carries on from
the latest profile of the run already in the file: ``wall_seconds`` and the sections add up over
the sessions (in-process time, without the downtime).

Failures. An exception that leaves ``with RunLog(...)`` (or ``with start_run(...)``) while the run
is active writes ``run_end`` with status ``failed: <ExceptionType>`` and is re-raised
(``SystemExit`` with code 0 or None counts as completed). A process killed without warning writes
nothing more: its run has no run_end, as the input contract expects of a crash.

Ranks. The global rank is ``rank=`` if given, else torch.distributed's when it is initialized,
else the first of the RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK and PMI_RANK environment variables
that is set, else 0. The world size is ``world_size=`` if given, else torch.distributed's, else the
first of WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE and PMI_SIZE that is set, else unknown. Both
are read at the first run_start. When the world size is above 1, every line carries ``"rank"`` and
``"world_size"`` right after ``ts``; a single process (world size 1 or unknown) writes its lines
without them, as before ranks existed. By default only global rank 0 writes (the others keep the
same checks and clocks and write nothing). With ``per_rank_files=True`` every rank writes
``<stem>.rank<N>.jsonl``, all with the same run_id: one run with ranks, which runlens compares
(earlier versions made each rank a run ``<run_id>.rank<N>`` of its own; that is gone). Only rank 0's
run_start carries ``config``; the other ranks' has ``collection`` and ``task`` only. A rank above 0
writing its own file needs a known world size (``world_size=`` or WORLD_SIZE), and the rank must be
below the world size: anything else raises ValueError at run_start.

Collective sections. ``section(name, collective=True)`` (or ``open_section``) marks a section that
holds a synchronizing collective, where a fast rank waits for the others: DDP's backward with its
gradient all-reduce, a barrier. Once one is opened in a run, every profile lists such sections as
``"collective_sections"`` (sorted names; carried over resumes like the sections; without any, the
key is left out). runlens takes a rank's busy time as its sections' seconds less the collective
ones. A name is collective or not for the whole run; opening it the other way raises ValueError.

When a marker is taken on a rank. A marker (checkpoint, epoch_end) records the moment this rank
called the method. To measure a rank's arrival, call ``checkpoint(step)`` where the rank's own work
for the step ends, before the step's synchronizing collective (in a plain DDP loop: after forward
and loss, before ``loss.backward()``): a slow rank then arrives late. A marker written after a
collective reaches every rank at the same moment and shows nothing; there, time the collective part
with ``collective=True`` and the rest with ordinary sections, and runlens compares the ranks' busy
time instead.

Config. ``config`` must be a dict with string keys; nested dicts are kept (runlens flattens them to
dotted names). Converted: tuples to lists, ``os.PathLike`` (``pathlib.Path``) to strings, numpy
and torch scalars (anything with ``.item()`` and no dimensions) to Python numbers. Refused with a
TypeError naming the key path (``config.optimizer.betas[1]``): any other type; with a ValueError:
NaN and infinities (strict JSON has none) and strings that are not valid Unicode. Nothing is
written until the whole line is valid, so bad input never leaves a broken line.

Bad use raises at once: RunLogError for calls out of order (a checkpoint or section before
run_start or after run_end, run_start twice, train_start twice in one session), ValueError or
TypeError for bad values (a negative or non-integer step, an empty collection, a path runlens
would not read).
"""

from __future__ import annotations

import json
import math
import operator
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: O_APPEND single writes, without the advisory lock
    fcntl = None

__version__ = "0.1.0"
__all__ = [
    "RunLog",
    "RunLogError",
    "failed_status",
    "global_rank",
    "global_world_size",
    "json_config",
    "start_run",
]

# runlens computes this section itself: the profiled wall time that no section covers.
UNATTRIBUTED = "unattributed"
RANK_VARIABLES = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK")
WORLD_SIZE_VARIABLES = ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")

# The two clocks, as module attributes so that tests can replace them.
_monotonic_ns = time.monotonic_ns  # section and wall seconds
_time_ns = time.time_ns  # event timestamps


# the longest a run goes without a profile line while sections open and close (RunLog's profile_every)
PROFILE_EVERY_SECONDS = 60.0


class RunLogError(RuntimeError):
    """A RunLog method called out of order, such as a checkpoint before run_start."""


def start_run(
    path: str | os.PathLike,
    *,
    collection: str,
    task: str,
    config: Mapping[str, Any] | None = None,
    run_id: str | None = None,
    per_rank_files: bool = False,
    rank: int | None = None,
    world_size: int | None = None,
    profile_every: float | None = PROFILE_EVERY_SECONDS,
) -> RunLog:
    """A RunLog for `path` whose run_start is written: use it as ``with start_run(...) as log:``."""
    log = RunLog(
        path, run_id, per_rank_files=per_rank_files, rank=rank, world_size=world_size, profile_every=profile_every
    )
    log.run_start(collection, task, config)
    return log


def failed_status(exception_type: type[BaseException]) -> str:
    """The run_end status for a run ended by an exception of this type: ``failed: <TypeName>``."""
    return f"failed: {exception_type.__name__}"


def global_rank() -> int:
    """This process's global rank: torch.distributed's when initialized, else RANK, SLURM_PROCID,
    OMPI_COMM_WORLD_RANK or PMI_RANK, else 0. torch is never imported here, only asked if loaded."""
    distributed = _initialized_distributed()
    if distributed is not None:
        return int(distributed.get_rank())
    rank = _environment_integer(RANK_VARIABLES, "rank")
    return 0 if rank is None else rank


def global_world_size() -> int | None:
    """The number of ranks: torch.distributed's when initialized, else WORLD_SIZE, SLURM_NTASKS,
    OMPI_COMM_WORLD_SIZE or PMI_SIZE, else None (unknown: a single process, as far as anyone says)."""
    distributed = _initialized_distributed()
    if distributed is not None:
        return int(distributed.get_world_size())
    return _environment_integer(WORLD_SIZE_VARIABLES, "world size", minimum=1)


def json_config(value: Any, *, lenient: bool = False, path: str = "config") -> Any:
    """`value` as plain JSON data (dict, list, str, int, float, bool, None), converted as the module
    docstring says. Refused values raise TypeError or ValueError naming `path`; with `lenient`, they
    become their ``str()`` instead (the callbacks use this for configs they gather themselves)."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, str):
        return _valid_text(value, path, lenient)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        if lenient:
            return str(value)
        raise ValueError(f"{path} is {value}: strict JSON has no NaN or infinity; log a string or leave it out")
    if isinstance(value, Mapping):
        converted = {}
        for key, item in value.items():
            if not isinstance(key, str):
                if not lenient:
                    raise TypeError(f"{path} has a key {key!r} ({type(key).__name__}): config keys must be strings")
                key = str(key)
            converted[_valid_text(key, path, lenient)] = json_config(item, lenient=lenient, path=_key_path(path, key))
        return converted
    if isinstance(value, (list, tuple)):
        return [json_config(item, lenient=lenient, path=f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, os.PathLike):
        return json_config(os.fsdecode(value), lenient=lenient, path=path)
    scalar = _scalar_item(value)
    if scalar is not None:
        return json_config(scalar, lenient=lenient, path=path)
    if lenient:
        return _valid_text(str(value), path, lenient)
    raise TypeError(
        f"{path} is a {type(value).__module__}.{type(value).__qualname__}, which is not JSON: log a number, "
        "string, bool, None, list or dict (Path, numpy and torch scalars are converted)"
    )


class RunLog:
    """One run's event log: a JSON Lines file that runlens reads. See the module docstring."""

    def __init__(
        self,
        path: str | os.PathLike,
        run_id: str | None = None,
        *,
        per_rank_files: bool = False,
        rank: int | None = None,
        world_size: int | None = None,
        profile_every: float | None = PROFILE_EVERY_SECONDS,
    ) -> None:
        self._base_path = _log_path(path)
        if profile_every is not None and not (
            isinstance(profile_every, (int, float)) and not isinstance(profile_every, bool) and profile_every >= 0
        ):
            raise ValueError(f"profile_every is {profile_every!r}: give seconds >= 0, or None for no periodic profile")
        self._profile_every_ns = None if profile_every is None else int(profile_every * 1e9)
        self._last_profile_ns = 0  # monotonic time of this session's run_start or latest profile
        self.run_id = _text(self._base_path.stem if run_id is None else run_id, "run_id")  # the same on every rank
        self.per_rank_files = bool(per_rank_files)
        # The global rank; None: found at run_start (global_rank()). The callbacks set the
        # framework's own before run_start.
        self.rank = None if rank is None else _non_negative_int(rank, "rank")
        # The number of ranks; None: found at run_start (global_world_size()), and may stay unknown.
        self.world_size = None if world_size is None else _positive_int(world_size, "world_size")
        self.path: Path | None = None  # the file written, once run_start has chosen it (None on silent ranks)
        self._lock = threading.RLock()
        self._state = "new"  # new -> active (run_start) -> ended (run_end) -> active ...
        self._fd: int | None = None
        self._clock: _SectionClock | None = None
        self._carried: tuple[int, dict[str, int]] | None = None  # profile totals of earlier sessions
        self._collective: dict[str, bool] | None = None  # section name -> collective, over the sessions
        self._last_ts_us = 0
        self._training = False  # train_start written in this session

    # -- the events ------------------------------------------------------------------------

    def run_start(self, collection: str, task: str, config: Mapping[str, Any] | None = None) -> None:
        """Write run_start and start the run's clocks; a second session of the same run resumes it."""
        collection, task = _text(collection, "collection"), _text(task, "task")
        if config is not None and not isinstance(config, Mapping):
            raise TypeError(f"config must be a dict, not {type(config).__name__}")
        fields: dict[str, Any] = {"collection": collection, "task": task}
        if config is not None:
            fields["config"] = json_config(config)  # checked on every rank, written by rank 0 only
        with self._lock:
            if self._state == "active":
                raise RunLogError(f"run_start() while run {self.run_id!r} is active: call run_end() first")
            if self._state == "new":
                self._choose_file()
            if self.rank != 0:
                fields.pop("config", None)  # config is a run-level fact: rank 0's
            if self.path is not None:
                self._fd = _open_for_append(self.path)
                if self._carried is None:
                    self._carried, self._collective = _latest_profile(self.path, self.run_id)
            if self._collective is None:
                self._collective = {}
            carried_wall, carried_sections = self._carried or (0, {})
            self._clock = _SectionClock(carried_wall, carried_sections)
            self._state = "active"
            self._training = False
            self._last_profile_ns = _monotonic_ns()
            self._write("run_start", fields, sync=True)

    def train_start(self, step: int | None = None) -> None:
        """Write train_start where this session's first training step begins, after its set-up
        (model and data set-up, compilation, a restored checkpoint); `step`: the step training starts
        from (on a resume, the restored checkpoint's). Once per session."""
        fields = {} if step is None else {"step": _non_negative_int(step, "step")}
        with self._lock:
            self._require_active("train_start()")
            if self._training:
                raise RunLogError(
                    f"train_start() twice in one session of run {self.run_id!r}: call it once, before the first step"
                )
            self._training = True
            self._write("train_start", fields)

    def checkpoint(self, step: int) -> None:
        """Write a checkpoint marker (call it once the checkpoint is saved) and the profile so far."""
        step = _non_negative_int(step, "step")
        with self._lock:
            self._require_active("checkpoint()")
            self._write("checkpoint", {"step": step})
            self._write_profile(sync=True)

    def epoch_end(self, epoch: int | None = None, step: int | None = None) -> None:
        """Write an epoch_end marker; `epoch` and `step` are optional non-negative integers."""
        fields = {}
        if epoch is not None:
            fields["epoch"] = _non_negative_int(epoch, "epoch")
        if step is not None:
            fields["step"] = _non_negative_int(step, "step")
        with self._lock:
            self._require_active("epoch_end()")
            self._write("epoch_end", fields)

    def run_end(self, status: str = "completed") -> None:
        """Write the final profile and run_end; `status` is "completed" or says how the run failed."""
        status = _text(status, "status")
        with self._lock:
            self._require_active("run_end()")
            self._carried = self._clock.stop()
            self._write_profile(final=True)
            self._write("run_end", {"status": status}, sync=True)
            self._state = "ended"
            self._close_file()

    def profile(self) -> None:
        """Write the cumulative profile now (checkpoints and run_end write one anyway)."""
        with self._lock:
            self._require_active("profile()")
            self._write_profile()

    def sample(
        self,
        measurements: Mapping[str, float],
        *,
        gpu: int | None = None,
        host: str | None = None,
        units: Mapping[str, str] | None = None,
    ) -> None:
        """Write a utilization sample: what one device measured now, GPU `gpu` (its index) or, without
        `gpu`, the host. `measurements`: name -> number, in the default unit of SAMPLE_MEASUREMENTS
        unless `units` names another (``{"gpu_memory_used": "B"}``). Not a marker: no interval ends at it."""
        fields: dict[str, Any] = {}
        if gpu is not None:
            fields["gpu"] = _non_negative_int(gpu, "gpu")
        if host is not None:
            fields["host"] = _text(host, "host")
        fields["measurements"] = _measurements(measurements, units, gpu is not None)
        if units:
            fields["units"] = {name: units[name] for name in sorted(units)}
        with self._lock:
            self._require_active("sample()")
            self._write("sample", fields)

    def start_sampler(self, every: float = 15.0) -> GpuSampler | None:
        """Sample every GPU NVML sees every `every` seconds, on a thread, while the run is active;
        returns the sampler (stop() ends it), or None, doing nothing, when nvidia-ml-py is not
        installed or finds no GPU driver."""
        return GpuSampler.start(self, every)

    # -- sections --------------------------------------------------------------------------

    @contextmanager
    def section(self, name: str, *, collective: bool = False) -> Iterator[None]:
        """Time the block as section `name` (the innermost open section owns the time); `collective`:
        it holds a synchronizing collective (see the module docstring)."""
        handle = self.open_section(name, collective=collective)
        try:
            yield
        finally:
            handle.close()

    def open_section(self, name: str, *, collective: bool = False) -> OpenSection:
        """Open section `name` until the returned handle's close(): for code that cannot use `with`."""
        name = _text(name, "section name")
        if name == UNATTRIBUTED:
            raise ValueError(f"{UNATTRIBUTED!r} is runlens' name for the time in no section: choose another")
        collective = bool(collective)
        with self._lock:
            self._require_active("a section")
            if self._collective.setdefault(name, collective) != collective:
                raise ValueError(
                    f"section {name!r} was opened with collective={not collective} earlier in run {self.run_id!r}: "
                    "a section holds a synchronizing collective or not for the whole run; give the other kind "
                    "another name"
                )
            handle = OpenSection(self, self._clock, name, collective)
            self._clock.open(handle)
            return handle

    def timed(self, iterable: Iterable, section: str = "data_loading") -> Iterator:
        """Iterate `iterable`, timing each fetch of the next item as `section`."""
        iterator = iter(iterable)
        while True:
            with self.section(section):
                try:
                    item = next(iterator)
                except StopIteration:
                    return
            yield item

    # -- state -----------------------------------------------------------------------------

    @property
    def is_active(self) -> bool:
        """True between run_start and run_end."""
        return self._state == "active"

    @property
    def is_training(self) -> bool:
        """True once train_start() was written in the current session."""
        return self._state == "active" and self._training

    @property
    def is_writing(self) -> bool:
        """True when this process writes a file (rank 0, or every rank with per_rank_files)."""
        return self.path is not None

    def close(self) -> None:
        """Close the file without writing run_end (the run then stays incomplete in runlens)."""
        with self._lock:
            self._close_file()

    def __getstate__(self) -> dict[str, Any]:
        """A RunLog that is not active can be pickled (frameworks that spawn workers copy callbacks)."""
        if self._state == "active":
            raise TypeError(f"an active RunLog cannot be pickled (run {self.run_id!r} has its file open)")
        state = dict(vars(self))
        state["_lock"], state["_fd"] = None, None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self._lock = threading.RLock()

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, exc_type, exc, traceback) -> bool:
        with self._lock:
            if self._state == "active":
                clean_exit = exc_type is None or (exc_type is SystemExit and getattr(exc, "code", None) in (0, None))
                self.run_end("completed" if clean_exit else failed_status(exc_type))
            self._close_file()
        return False

    # -- internals -------------------------------------------------------------------------

    def _choose_file(self) -> None:
        rank = global_rank() if self.rank is None else self.rank
        world_size = global_world_size() if self.world_size is None else self.world_size
        if world_size is not None and rank >= world_size:
            raise ValueError(f"rank {rank} is not below the world size {world_size}: ranks count from 0")
        if self.per_rank_files and rank > 0 and world_size is None:
            raise ValueError(
                f"rank {rank} writes its own file but the world size is unknown: pass world_size= "
                f"(or set WORLD_SIZE) so that its lines carry the rank"
            )
        self.rank, self.world_size = rank, world_size
        if self.per_rank_files:
            self.path = self._base_path.with_name(f"{self._base_path.stem}.rank{rank}.jsonl")
        elif rank == 0:
            self.path = self._base_path

    @property
    def _ranked(self) -> bool:
        """True when the lines carry rank and world_size: a run of more than one rank."""
        return self.world_size is not None and self.world_size > 1

    def _require_active(self, what: str) -> None:
        if self._state == "new":
            raise RunLogError(f"{what} before run_start(): start the run first")
        if self._state == "ended":
            raise RunLogError(f"{what} after run_end(): call run_start() again to resume the run")

    def _profile_if_due(self) -> None:
        """The periodic profile: when profile_every has passed since the session's start or its
        latest profile (called as a section closes)."""
        if self._state != "active" or self._profile_every_ns is None:
            return
        if _monotonic_ns() - self._last_profile_ns >= self._profile_every_ns:
            self._write_profile()

    def _write_profile(self, sync: bool = False, final: bool = False) -> None:
        self._last_profile_ns = _monotonic_ns()
        wall_ns, section_ns = self._clock.totals()
        fields: dict[str, Any] = {
            "wall_seconds": -(-wall_ns // 1000) / 1e6,  # rounded up to the microsecond, sections down:
            "sections": {name: section_ns[name] // 1000 / 1e6 for name in sorted(section_ns)},  # never above wall
        }
        collective = sorted(name for name, is_collective in self._collective.items() if is_collective)
        if collective:
            fields["collective_sections"] = collective
        fields["final"] = final  # false while the run goes on: a killed run stays incomplete
        self._write("profile", fields, sync=sync)

    def _write(self, event: str, fields: dict[str, Any], sync: bool = False) -> None:
        ts_us = max(_time_ns() // 1000, self._last_ts_us + 1)
        self._last_ts_us = ts_us
        record: dict[str, Any] = {"run_id": self.run_id, "event": event, "ts": _rfc3339(ts_us)}
        if self._ranked:
            record["rank"], record["world_size"] = self.rank, self.world_size
        record.update(fields)
        line = json.dumps(record, allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        if self._fd is not None:
            _append_line(self._fd, line)
            if sync:
                os.fsync(self._fd)

    def _close_file(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# measurement -> (device, default unit, other units): what runlens reads from a sample (its
# input contract, "Utilization samples"); a value outside 0..100 (%) or below 0 is rejected there
_MEMORY_UNITS = ("MiB", "B", "KiB", "GiB", "MB", "GB")
SAMPLE_MEASUREMENTS = {
    "gpu_utilization": ("gpu", ("%",)),
    "gpu_memory_used": ("gpu", _MEMORY_UNITS),
    "gpu_memory_utilization": ("gpu", ("%",)),
    "gpu_power": ("gpu", ("W", "mW")),
    "cpu_utilization": ("host", ("%",)),
    "host_memory_utilization": ("host", ("%",)),
    "process_memory_used": ("host", _MEMORY_UNITS),
}


def _measurements(values: Mapping[str, float], units: Mapping[str, str] | None, on_gpu: bool) -> dict[str, float]:
    if not isinstance(values, Mapping) or not values:
        raise ValueError("measurements must be a non-empty dict of name -> number")
    checked = {}
    for name, value in values.items():
        name = _text(name, "measurement name")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"measurement {name} is {value!r}: give a finite number >= 0")
        device, accepted = SAMPLE_MEASUREMENTS.get(name, (None, ()))
        if device == "gpu" and not on_gpu:
            raise ValueError(f"{name} is a GPU measurement: say which GPU with gpu=")
        if device == "host" and on_gpu:
            raise ValueError(f"{name} is a host measurement: leave gpu= out")
        unit = (units or {}).get(name)
        if unit is not None and device is not None and unit not in accepted:
            raise ValueError(f"the unit of {name} is {unit!r}: use one of {', '.join(accepted)}")
        checked[name] = value
    return checked


class GpuSampler:
    """A thread that writes a sample of every GPU (utilization, memory used, power) through NVML
    (the nvidia-ml-py package, imported only here) every `every` seconds while its RunLog is active."""

    def __init__(self, log: RunLog, every: float, nvml: Any, handles: list[Any]) -> None:
        self._log, self._every, self._nvml, self._handles = log, every, nvml, handles
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="runlens-gpu-sampler", daemon=True)

    @classmethod
    def start(cls, log: RunLog, every: float) -> GpuSampler | None:
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not every > 0:
            raise ValueError(f"every is {every!r}: give seconds > 0")
        try:
            import pynvml  # nvidia-ml-py: optional, never a requirement of the writer
        except ImportError:
            return None
        try:
            pynvml.nvmlInit()
            handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        except Exception:  # no driver, no GPU: nothing to sample
            return None
        if not handles:
            return None
        sampler = cls(log, float(every), pynvml, handles)
        sampler._thread.start()
        return sampler

    def sample_once(self) -> None:
        for index, handle in enumerate(self._handles):
            values: dict[str, float] = {}
            units: dict[str, str] = {}
            for name, unit, read in (
                ("gpu_utilization", None, lambda h: self._nvml.nvmlDeviceGetUtilizationRates(h).gpu),
                ("gpu_memory_used", "B", lambda h: self._nvml.nvmlDeviceGetMemoryInfo(h).used),
                ("gpu_power", "mW", self._nvml.nvmlDeviceGetPowerUsage),
            ):
                try:
                    values[name] = read(handle)
                except Exception:  # a GPU that does not report this measurement
                    continue
                if unit:
                    units[name] = unit
            if values and self._log.is_active:
                self._log.sample(values, gpu=index, units=units or None)

    def stop(self) -> None:
        """Stop sampling (waits for the thread)."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._every):
            if not self._log.is_active:
                return
            try:
                self.sample_once()
            except RunLogError:
                return


class OpenSection:
    """A section opened by RunLog.open_section(); close() ends it (again: no effect)."""

    def __init__(self, log: RunLog, clock: _SectionClock, name: str, collective: bool = False) -> None:
        self._log, self._clock, self.name, self.collective = log, clock, name, collective

    def close(self) -> None:
        with self._log._lock:
            self._clock.close(self)
            self._log._profile_if_due()


class _SectionClock:
    """Nanoseconds per section within one session; the most recently opened open section owns the
    time. Totals start from the carried totals of earlier sessions."""

    def __init__(self, carried_wall_ns: int, carried_section_ns: dict[str, int]) -> None:
        self._started = self._since = _monotonic_ns()
        self._carried_wall = carried_wall_ns
        self._section_ns = dict(carried_section_ns)
        self._open: list[OpenSection] = []
        self._stopped: tuple[int, dict[str, int]] | None = None

    def open(self, handle: OpenSection) -> None:
        self._charge()
        self._open.append(handle)

    def close(self, handle: OpenSection) -> None:
        if self._stopped is not None or handle not in self._open:
            return
        if handle is self._open[-1]:
            self._charge()
        self._open.remove(handle)

    def totals(self) -> tuple[int, dict[str, int]]:
        if self._stopped is not None:
            return self._stopped
        now = self._charge()
        return self._carried_wall + now - self._started, dict(self._section_ns)

    def stop(self) -> tuple[int, dict[str, int]]:
        self._stopped = self.totals()
        self._open.clear()
        return self._stopped

    def _charge(self) -> int:
        now = _monotonic_ns()
        if self._open and self._stopped is None:
            owner = self._open[-1].name
            self._section_ns[owner] = self._section_ns.get(owner, 0) + now - self._since
        self._since = now
        return now


# -- files ---------------------------------------------------------------------------------------


@contextmanager
def _locked(fd: int) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _open_for_append(path: Path) -> int:
    """Open `path` for appending; if it ends in a truncated line, end that line first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    with _locked(fd):
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as existing:
                existing.seek(size - 1)
                if existing.read(1) != b"\n":
                    _write_all(fd, b"\n")
    return fd


def _append_line(fd: int, line: bytes) -> None:
    with _locked(fd):
        _write_all(fd, line)


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)  # one write: the whole line, at the end of the file (O_APPEND)
    while written < len(data):  # only after a partial write (a full disk, a signal): still under the lock
        written += os.write(fd, data[written:])


def _latest_profile(path: Path, run_id: str) -> tuple[tuple[int, dict[str, int]] | None, dict[str, bool] | None]:
    """Wall and section nanoseconds of the run's last valid profile in `path`, if any, and its
    sections' kinds (name -> collective)."""
    try:
        with open(path, "rb") as existing:
            lines = existing.read().splitlines()
    except FileNotFoundError:
        return None, None
    latest, kinds = None, None
    for raw in lines:
        if b'"profile"' not in raw:
            continue
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(event, dict) or event.get("run_id") != run_id or event.get("event") != "profile":
            continue
        wall, sections = event.get("wall_seconds"), event.get("sections", {})
        if not _is_seconds(wall) or not isinstance(sections, dict) or not all(map(_is_seconds, sections.values())):
            continue
        collective = event.get("collective_sections", [])
        if not isinstance(collective, list) or not all(isinstance(name, str) for name in collective):
            continue
        latest = (round(wall * 1e9), {name: round(seconds * 1e9) for name, seconds in sections.items()})
        kinds = {name: name in collective for name in [*sections, *collective]}
    return latest, kinds


def _log_path(path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.suffix != ".jsonl":
        raise ValueError(f"{path}: runlens reads *.jsonl files; name the log <something>.jsonl")
    if path.name.startswith(("_", ".")):
        raise ValueError(f"{path}: runlens skips files whose name starts with '_' or '.'; choose another name")
    return path


# -- values --------------------------------------------------------------------------------------


def _rfc3339(microseconds: int) -> str:
    seconds, fraction = divmod(microseconds, 1_000_000)
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + f".{fraction:06d}Z"


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} must not be empty")
    return _valid_text(value, what, lenient=False)


def _valid_text(value: str, path: str, lenient: bool) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        if lenient:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        raise ValueError(f"{path} is not valid Unicode text (it holds a lone surrogate): {value!r}") from None
    return str(value)


def _non_negative_int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, not a bool")
    try:
        number = operator.index(value)  # int, numpy and torch integers; not floats
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__} {value!r}") from None
    if number < 0:
        raise ValueError(f"{what} must be >= 0, not {number}")
    return int(number)


def _positive_int(value: Any, what: str) -> int:
    number = _non_negative_int(value, what)
    if number < 1:
        raise ValueError(f"{what} must be >= 1, not {number}")
    return number


def _initialized_distributed() -> Any:
    """torch.distributed if torch is loaded and its process group initialized, else None."""
    torch = sys.modules.get("torch")
    distributed = getattr(torch, "distributed", None) if torch is not None else None
    if distributed is not None and distributed.is_available() and distributed.is_initialized():
        return distributed
    return None


def _environment_integer(names: tuple[str, ...], what: str, minimum: int = 0) -> int | None:
    """The first of the environment variables `names` that is set, as an integer >= `minimum`."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"environment variable {name}={value!r} is not an integer {what}") from None
            if number < minimum:
                raise ValueError(f"environment variable {name}={value!r} is not a {what} (>= {minimum})")
            return number
    return None


def _scalar_item(value: Any) -> Any:
    """The Python number inside a numpy or torch scalar (no dimensions), else None."""
    item = getattr(value, "item", None)
    if not callable(item) or getattr(value, "ndim", getattr(value, "shape", None)) not in (0, ()):
        return None
    scalar = item()
    return scalar if isinstance(scalar, (bool, int, float)) else None


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"


def _is_seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
