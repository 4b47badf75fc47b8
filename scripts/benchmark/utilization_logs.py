"""The logs of the utilization step: runs of RUN_HOURS hours with utilization samples every
SAMPLE_EVERY_S seconds of GPUS GPUs and the host, as `runlens import` writes a W&B run's system
metrics (runlens/importers/system_metrics.py: one `sample` line per device and moment, the
measurements in W&B's units, without the provenance fields the importer adds, which no utilization
figure reads), one file per run; and the same runs without their samples, in a folder of their own.

Each run: run_start (resources.gpus = GPUS), a checkpoint every hour up to CHECKPOINTS, the
epoch_end TAIL_S before the end and the run_end: CHECKPOINTS + 2 intervals. Samples tick every
SAMPLE_EVERY_S +- TICK_JITTER_S from SAMPLE_EVERY_S / 2 after the run_start until the run_end, every
device of a tick at the same time (W&B's system monitor takes them together); a GPU is about
BUSY % busy, less in the first START_UP_S and in the tail.

The refresh: run 0's file is written without its last hour (the lines from GROWN_FROM_S on: the
samples of that hour, the epoch_end and the run_end), as a live run's file is; grow() appends them,
so a refresh computes that one run again. Without samples, the same run grows by its markers alone.
A function of (seed, run index) only, so both folders hold the same runs and markers."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

RUN_HOURS = 6
SAMPLE_EVERY_S = 15.0
TICK_JITTER_S = 0.5
GPUS = 8
CHECKPOINTS = 5  # at 1 h, 2 h, ... 5 h
TAIL_S = 10 * 60
START_UP_S = 5 * 60
BUSY, START_UP_BUSY, TAIL_BUSY = 85.0, 8.0, 12.0
GPU_MEMORY_BYTES = 80 * 1024**3
GROWN_FROM_S = (RUN_HOURS - 1) * 3600 + 1  # run 0's lines from here on are appended by the refresh
GROWN_RUN = 0
START = datetime(2025, 4, 1, tzinfo=UTC)
COLLECTION = "bench/utilization"
_DAYS: dict[int, str] = {}


def run_id_of(index: int) -> str:
    return f"util-{index:07d}"


def ts_text(us: int) -> str:
    """Unix microseconds as RFC 3339 UTC with microseconds (runlens import's format), without datetime."""
    seconds, micros = divmod(us, 1_000_000)
    day, of_day = divmod(seconds, 86_400)
    date = _DAYS.get(day)
    if date is None:
        date = _DAYS[day] = (datetime(1970, 1, 1) + timedelta(days=day)).date().isoformat()
    hour, rest = divmod(of_day, 3600)
    minute, second = divmod(rest, 60)
    return f"{date}T{hour:02d}:{minute:02d}:{second:02d}.{micros:06d}Z"


@dataclass(frozen=True)
class Line:
    at_us: int
    text: str
    is_sample: bool


def run_lines(seed: int, index: int) -> list[Line]:
    """Run number index's lines in time order (a tick's samples after a marker at the same time)."""
    rng = random.Random((seed << 32) | index)
    run_id = run_id_of(index)
    start_us = int((START.timestamp() + index * 37 * 60 + rng.randrange(600)) * 1_000_000)
    end_us = start_us + RUN_HOURS * 3600 * 1_000_000
    head = f'{{"run_id": "{run_id}", "event": '

    def marker(event: str, at_us: int, fields: str = "") -> Line:
        return Line(at_us, f'{head}"{event}", "ts": "{ts_text(at_us)}"{fields}}}', False)

    config = json.dumps({"lr": 0.0003, "seed": index % 5})
    start = f', "collection": "{COLLECTION}", "task": "task_{index % 4}", "config": {config}'
    start += f', "resources": {{"gpus": {GPUS}}}'
    lines = [marker("run_start", start_us, start)]
    for number in range(1, CHECKPOINTS + 1):
        lines.append(marker("checkpoint", start_us + number * 3600 * 1_000_000, f', "step": {number * 1000}'))
    epoch_end_us = end_us - TAIL_S * 1_000_000
    lines.append(marker("epoch_end", epoch_end_us, f', "epoch": 1, "step": {(CHECKPOINTS + 1) * 1000}'))
    lines.append(marker("run_end", end_us, ', "status": "completed"'))
    gpu_units = (
        '"units": {"gpu_utilization": "%", "gpu_memory_used": "B", "gpu_memory_utilization": "%", "gpu_power": "W"}'
    )
    host_units = '"units": {"cpu_utilization": "%", "host_memory_utilization": "%", "process_memory_used": "MiB"}'
    at_us = start_us + int(SAMPLE_EVERY_S / 2 * 1_000_000)
    while at_us < end_us:
        ts = ts_text(at_us)
        if at_us - start_us < START_UP_S * 1_000_000:
            base = START_UP_BUSY
        elif at_us >= epoch_end_us:
            base = TAIL_BUSY
        else:
            base = BUSY
        for gpu in range(GPUS):
            busy = round(min(max(rng.gauss(base, 4.0), 0.0), 100.0), 1)
            used = int(GPU_MEMORY_BYTES * (0.05 + 0.006 * busy))
            measurements = (
                f'{{"gpu_utilization": {busy}, "gpu_memory_used": {used}, '
                f'"gpu_memory_utilization": {round(100 * used / GPU_MEMORY_BYTES, 2)}, '
                f'"gpu_power": {round(80 + 6.2 * busy, 1)}}}'
            )
            text = f'{head}"sample", "ts": "{ts}", "gpu": {gpu}, "measurements": {measurements}, {gpu_units}}}'
            lines.append(Line(at_us, text, True))
        host = (
            f'{{"cpu_utilization": {round(20 + rng.uniform(0, 10), 1)}, "host_memory_utilization": 41.5, '
            f'"process_memory_used": 18432.5}}'
        )
        lines.append(Line(at_us, f'{head}"sample", "ts": "{ts}", "measurements": {host}, {host_units}}}', True))
        at_us += int((SAMPLE_EVERY_S + rng.uniform(-TICK_JITTER_S, TICK_JITTER_S)) * 1_000_000)
    lines.sort(key=lambda line: (line.at_us, line.is_sample))
    return lines


def _write(path: Path, lines: list[Line], mode: str = "w") -> int:
    with path.open(mode) as handle:
        handle.write("".join(line.text + "\n" for line in lines))
    return len(lines)


def _split(seed: int, index: int, with_samples: bool) -> tuple[list[Line], list[Line]]:
    """A run's lines as first written and those the refresh appends (none but for GROWN_RUN)."""
    lines = [line for line in run_lines(seed, index) if with_samples or not line.is_sample]
    if index != GROWN_RUN:
        return lines, []
    cut = lines[0].at_us + GROWN_FROM_S * 1_000_000
    return [line for line in lines if line.at_us < cut], [line for line in lines if line.at_us >= cut]


def run_path(folder: Path, index: int) -> Path:
    return folder / COLLECTION.replace("/", "-") / f"{run_id_of(index)}.jsonl"


def write(with_samples_dir: Path, without_samples_dir: Path, runs: int, seed: int) -> dict:
    """Both folders: `runs` runs each, one file per run (run GROWN_RUN without its last hour)."""
    counts = {"runs": runs, "files": runs, "lines_with_samples": 0, "sample_lines": 0, "gpu_samples": 0}
    for folder in (with_samples_dir, without_samples_dir):
        run_path(folder, 0).parent.mkdir(parents=True, exist_ok=True)
    for index in range(runs):
        written, _ = _split(seed, index, True)
        counts["lines_with_samples"] += _write(run_path(with_samples_dir, index), written)
        samples = [line for line in written if line.is_sample]
        counts["sample_lines"] += len(samples)
        counts["gpu_samples"] += sum(1 for line in samples if '"gpu": ' in line.text)
        _write(run_path(without_samples_dir, index), [line for line in written if not line.is_sample])
    counts["bytes_with_samples"] = sum(p.stat().st_size for p in with_samples_dir.rglob("*.jsonl"))
    counts["bytes_without_samples"] = sum(p.stat().st_size for p in without_samples_dir.rglob("*.jsonl"))
    return counts


def grow(folder: Path, seed: int, with_samples: bool) -> dict:
    """Append run GROWN_RUN's last hour to its file: its samples (with_samples) and its last markers."""
    _, appended = _split(seed, GROWN_RUN, with_samples)
    _write(run_path(folder, GROWN_RUN), appended, "a")
    return {
        "run_id": run_id_of(GROWN_RUN),
        "lines_appended": len(appended),
        "sample_lines_appended": sum(1 for line in appended if line.is_sample),
    }
