"""The traces step's data: RUNS runs of one hour, each in its own folder (the writer's layout), each
with a profiler trace of about EVENTS events below it (`<run>/trace/rank-0.pt.trace.json`), written
in Kineto's current schema; and the same runs' logs without the traces, for the build they are
measured against.

A trace's steps (def_profiled_steps) repeat one plan, STEP_US long: a `ProfilerStep#N` annotation on
the host, the DataLoader's `__next__` (LOADING_US), then KERNELS operators, each an `aten::` op on
the host that launches one kernel (`cudaLaunchKernel`, its correlation id) on stream 7, KERNEL_US
long and KERNEL_GAP_US after the previous one, and one host-to-device copy. So every step has
4 + 3 x KERNELS events; a trace ends with one more step, which the profiler cuts short (the models
leave it out). The trace starts a minute after its run's run_start (baseTimeNanoseconds), inside
the run's window, so it belongs to that run (def_trace_runs).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

RUNS = 100
EVENTS = 100_000
KERNELS = 32
STEP_US = 20_000
LOADING_US = 2_000
KERNEL_US = 400
KERNEL_GAP_US = 50
COPY_US = 300
EVENTS_PER_STEP = 4 + 3 * KERNELS
FIRST_RUN_AT = datetime(2026, 1, 5, tzinfo=UTC)


def run_id(index: int) -> str:
    return f"trace-run-{index:04d}"


def run_lines(index: int, started: datetime) -> list[str]:
    """A completed run of one hour: run_start, train_start, a checkpoint every 10 minutes, the
    epoch end at 55 minutes, run_end at 60."""

    def line(event: str, minutes: float, **fields) -> str:
        at = (started + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return json.dumps({"run_id": run_id(index), "event": event, "ts": at, **fields})

    lines = [
        line("run_start", 0, collection="bench/traces", task=f"task-{index % 4}", resources={"gpus": 1}),
        line("train_start", 0.5, step=0),
    ]
    lines += [line("checkpoint", 10 * k, step=1000 * k) for k in range(1, 6)]
    lines += [line("epoch_end", 55, epoch=1, step=5500), line("run_end", 60, status="completed")]
    return lines


def complete(category: str, name: str, ts: int, dur: int, pid, tid, args: dict) -> str:
    event = {"ph": "X", "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}
    return json.dumps(event)


def step_events(number: int, origin: int, correlation: int) -> list[str]:
    """The plan's events of step `number` (from 1), starting at origin (us)."""
    host, events = (4242, 4242), []
    events.append(complete("user_annotation", f"ProfilerStep#{number}", origin, STEP_US, *host, {"External id": 0}))
    loader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
    events.append(complete("user_annotation", loader, origin + 10, LOADING_US, *host, {}))
    gpu_at = origin + LOADING_US + 100
    for kernel in range(KERNELS):
        launch = origin + LOADING_US + 20 + 10 * kernel
        ids = {"correlation": correlation + kernel, "External id": correlation + kernel}
        events.append(complete("cpu_op", "aten::mm", launch - 5, 8, *host, {"External id": correlation + kernel}))
        events.append(complete("cuda_runtime", "cudaLaunchKernel", launch, 4, *host, {"cbid": 211, **ids}))
        gpu = {"device": 0, "context": 1, "stream": 7, **ids}
        events.append(complete("kernel", f"gemm_kernel_{kernel % 4}", gpu_at, KERNEL_US, 0, 7, gpu))
        gpu_at += KERNEL_US + KERNEL_GAP_US
    copy = correlation + KERNELS
    ids = {"correlation": copy, "External id": copy}
    events.append(complete("cuda_runtime", "cudaMemcpyAsync", origin + LOADING_US + 15, 4, *host, {"cbid": 41, **ids}))
    copy_args = {"device": 0, "context": 1, "stream": 7, **ids}
    events.append(complete("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", gpu_at, COPY_US, 0, 7, copy_args))
    return events


def write_trace(path: Path, base_ns: int, events: int) -> int:
    """A trace of about `events` events (whole steps, then the cut-short last one); returns its
    number of steps, the last included."""
    steps = max(2, round(events / EVENTS_PER_STEP))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],\n')
        handle.write('  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n  "traceEvents": [\n')
        for number in range(1, steps + 1):
            lines = step_events(number, (number - 1) * STEP_US, number * 1000)
            handle.write(",\n".join(lines))
            handle.write(",\n" if number < steps else "\n")
        handle.write(f'  ],\n  "traceName": "{path.name}",\n  "baseTimeNanoseconds": {base_ns}\n}}\n')
    return steps


def write_dataset(with_traces: Path, without_traces: Path, runs: int = RUNS, events: int = EVENTS) -> dict:
    """The runs' logs in both folders, their traces in with_traces only; what was written."""
    steps = 0
    for index in range(runs):
        started = FIRST_RUN_AT + timedelta(hours=index)
        text = "\n".join(run_lines(index, started)) + "\n"
        for raw in (with_traces, without_traces):
            folder = raw / run_id(index)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{run_id(index)}.jsonl").write_text(text, encoding="utf-8")
        base_ns = int((started + timedelta(minutes=1)).timestamp()) * 1_000_000_000
        steps += write_trace(with_traces / run_id(index) / "trace" / "rank-0.pt.trace.json", base_ns, events)
    trace_bytes = sum(path.stat().st_size for path in with_traces.rglob("*.pt.trace.json"))
    return {"runs": runs, "trace_steps": steps, "trace_events": steps * EVENTS_PER_STEP, "trace_bytes": trace_bytes}
