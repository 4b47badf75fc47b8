"""The trackers' system metrics -> utilization samples (input_contract.md, "Utilization samples").

W&B's `stats` records, MLflow's `system/...` metrics and Lightning's DeviceStatsMonitor scalars
each name a measurement their own way; this module says which of their names is which contract
measurement (and in which unit), and gathers the measurements of one device at one moment into one
sample line. The mapping tables, and what is left out and why: docs/importers.md, "System metrics".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .common import Run

# W&B (wandb-core's system monitor; the Python monitor of 2021 wrote the same GPU keys, `memory`
# for `memory_percent`): key -> (measurement, unit). W&B's `proc.memory.rssMB` is RSS / 1024**2.
WANDB_GPU = {
    "gpu": ("gpu_utilization", "%"),
    "memoryAllocatedBytes": ("gpu_memory_used", "B"),
    "memoryAllocated": ("gpu_memory_utilization", "%"),
    "powerWatts": ("gpu_power", "W"),
}
WANDB_HOST = {
    "cpu": ("cpu_utilization", "%"),
    "memory_percent": ("host_memory_utilization", "%"),
    "memory": ("host_memory_utilization", "%"),  # W&B before wandb-core (2021 runs)
    "proc.memory.rssMB": ("process_memory_used", "MiB"),
}
_WANDB_GPU_KEY = re.compile(r"^gpu\.(\d+)\.([A-Za-z]+)$")

# MLflow's SystemMetricsMonitor: `system/[<node id>/]<name>`; its `step` counts samples.
MLFLOW_PREFIX = "system/"
MLFLOW_GPU = {
    "utilization_percentage": ("gpu_utilization", "%"),
    "memory_usage_megabytes": ("gpu_memory_used", "MB"),  # NVML's used bytes / 1e6 (NVIDIA)
    "memory_usage_gigabytes": ("gpu_memory_used", "GB"),  # rocm-smi's used bytes / 1e9 (AMD)
    "memory_usage_percentage": ("gpu_memory_utilization", "%"),
    "power_usage_watts": ("gpu_power", "W"),
}
MLFLOW_HOST = {
    "cpu_utilization_percentage": ("cpu_utilization", "%"),
    "system_memory_usage_percentage": ("host_memory_utilization", "%"),
}
_MLFLOW_GPU_NAME = re.compile(r"^gpu_(\d+)_(.+)$")
# The monitor's CPU utilization is psutil.cpu_percent() without an interval: the share of CPU time
# since the last reading in the same thread. Its first tick (step 0) is the first reading in the
# monitor's new thread, which compares with no time of the run (psutil's "meaningless 0.0", or the
# time since an earlier thread of the same id last read it): not a measurement of the run.
MLFLOW_FIRST_TICK_UNREAD = frozenset({"cpu_utilization"})

# Lightning's DeviceStatsMonitor: `DeviceStatsMonitor.<hook>/<metric>` (psutil's, on the CPU
# accelerator or with cpu_stats=True). Its CUDA statistics are the caching allocator's counters,
# for a device the tag does not name: not read (docs/importers.md says why).
DEVICE_STATS_PREFIX = "DeviceStatsMonitor."
DEVICE_STATS_HOST = {
    "cpu_percent": ("cpu_utilization", "%"),
    "cpu_vm_percent": ("host_memory_utilization", "%"),
}


@dataclass(frozen=True)
class Measure:
    """One tracker value read as a contract measurement of one device (gpu None: the host)."""

    name: str
    unit: str
    gpu: int | None = None
    host: str | None = None


def wandb_measure(key: str) -> Measure | None:
    """The measurement a W&B stats key holds, or None for one runlens does not read."""
    if key in WANDB_HOST:
        return Measure(*WANDB_HOST[key])
    match = _WANDB_GPU_KEY.match(key)
    if match and match.group(2) in WANDB_GPU:
        return Measure(*WANDB_GPU[match.group(2)], gpu=int(match.group(1)))
    return None


def is_mlflow_system(key: str) -> bool:
    """An MLflow metric that its system-metrics monitor logged: not a training metric."""
    return key.startswith(MLFLOW_PREFIX)


def mlflow_measure(key: str) -> Measure | None:
    """The measurement an MLflow system metric holds (its node id, if any, is the host), or None."""
    if not is_mlflow_system(key):
        return None
    node, _, name = key.removeprefix(MLFLOW_PREFIX).rpartition("/")
    host = node or None
    if name in MLFLOW_HOST:
        return Measure(*MLFLOW_HOST[name], host=host)
    match = _MLFLOW_GPU_NAME.match(name)
    if match and match.group(2) in MLFLOW_GPU:
        return Measure(*MLFLOW_GPU[match.group(2)], gpu=int(match.group(1)), host=host)
    return None


def mlflow_reads(measure: Measure, step: int) -> bool:
    """Whether an MLflow system metric's value at this step (the monitor's tick) is a measurement:
    all are, but the CPU utilization of the first tick (MLFLOW_FIRST_TICK_UNREAD)."""
    return step != 0 or measure.name not in MLFLOW_FIRST_TICK_UNREAD


def is_device_stats(tag: str) -> bool:
    """A scalar that Lightning's DeviceStatsMonitor logged: not a training metric."""
    return tag.startswith(DEVICE_STATS_PREFIX)


def device_stats_hook(tag: str) -> tuple[str, str] | None:
    """(hook, metric) of a DeviceStatsMonitor tag, or None."""
    if not is_device_stats(tag) or "/" not in tag:
        return None
    hook, metric = tag.removeprefix(DEVICE_STATS_PREFIX).split("/", 1)
    return hook, metric


def device_stats_measure(metric: str) -> Measure | None:
    return Measure(*DEVICE_STATS_HOST[metric]) if metric in DEVICE_STATS_HOST else None


def device_stats_samples(series: dict[str, list], samples: Samples) -> None:
    """DeviceStatsMonitor's scalars (series: tag -> scalars.Point) as samples. One call of the
    callback logs each metric of one hook once, at one step, a few microseconds apart (a
    TensorBoard writer times each scalar): a hook's points, in time order, are one call until a
    metric comes again or the step changes, and the call's sample is at its first point's time."""
    by_hook: dict[str, list[tuple]] = {}
    for tag, points in series.items():
        parts = device_stats_hook(tag)
        if parts is not None and device_stats_measure(parts[1]) is not None:
            by_hook.setdefault(parts[0], []).extend((point, parts[1]) for point in points)
    for hooked in by_hook.values():
        hooked.sort(key=lambda item: (item[0].ts_us, item[0].source_path, item[1]))
        call: dict[str, object] = {}
        for point, metric in hooked:
            first = next(iter(call.values()), None)
            if first is None or metric in call or point.step != first.step or point.source_path != first.source_path:
                call, first = {}, point
            call[metric] = point
            samples.add(first.ts_us, first.source_path, device_stats_measure(metric), point.value)


@dataclass
class Samples:
    """The sample lines of one run, gathered: one per device and moment, with every measurement
    taken there, so that a device's measurements are never split over lines."""

    lines: dict[tuple, dict] = field(default_factory=dict)

    def add(self, ts_us: int, source_path: str, measure: Measure, value: float) -> None:
        """One value; the line of its device and moment keeps the first source it was read from
        (the runlens marts read one sample per device and moment: input_contract.md)."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return
        key = (ts_us, measure.host or "", -1 if measure.gpu is None else measure.gpu)
        line = self.lines.setdefault(key, {"source_path": source_path, "measurements": {}, "units": {}})
        line["measurements"].setdefault(measure.name, value)
        line["units"].setdefault(measure.name, measure.unit)

    def write(self, run: Run) -> int:
        """Add every gathered sample to the run; returns how many."""
        for (ts_us, host, gpu), line in sorted(self.lines.items()):
            fields: dict = {}
            if gpu >= 0:
                fields["gpu"] = gpu
            if host:
                fields["host"] = host
            run.add(
                "sample", ts_us, line["source_path"], measurements=line["measurements"], units=line["units"], **fields
            )
        return len(self.lines)
