"""Profiler traces with GPU events, written in Kineto's real schemas (which these machines cannot
record: they have no GPU), for the step breakdown tests (tests/pipeline/test_traces.py).

One scenario, GPU_PLAN, is written in the current schema (`cpu_op`, `user_annotation`,
`cuda_runtime`, `kernel`, `gpu_memcpy`, `gpu_memset`, `gpu_user_annotation`, with
`distributedInfo`, `deviceProperties` and `baseTimeNanoseconds`, as torch 2.x writes it) and in
the 2021 one (`Operator`, `Runtime`, `Kernel`, `Memcpy`, `Memset`, `tid` "stream 7", `external
id`, no distributedInfo). Times are microseconds from the trace's first step; the test works
out every figure from this plan by hand.

Host: ProfilerStep#1 0..1000, #2 1000..2000, #3 2000..2500 (the last, cut short); DataLoader
`__next__` 10..210 and 1010..1110. Each GPU event is launched by a runtime call (same
correlation id) at `launch`:

| correlation | launch | stream | name | start..end |
|---|---|---|---|---|
| 1 | 300 | 7 | gemm_kernel (computation) | 320..520 |
| 2 | 310 | 7 | gemm2_kernel (computation) | 530..630 |
| 4 | 320 | 20 | ncclKernel_AllReduce_RING_LL_Sum_float (communication) | 600..900 |
| 3 | 700 | 7 | Memcpy HtoD (Pageable -> Device) (memory) | 710..760 |
| 5 | 330 | 20 | Memset (Device) (memory) | 950..970 |
| 6 | 1100 | 7 | relu_kernel | 1150..1250 |
| 7 | 1300 | 7 | relu_kernel | 1350..1450 |
| 8 | 1310 | 7 | add_kernel | 1460..1500 |
| 9 | 2100 | 7 | gemm_kernel | 2150..2300 |

The current schema also writes each step on the GPU's timeline (`gpu_user_annotation`, no
stream): ProfilerStep#1 320..970, #2 1150..1500, #3 2150..2300.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

BASE_NS = 1_790_000_000_000_000_000  # baseTimeNanoseconds of the current-schema trace
ORIGIN_US = 5_000_000_000  # the first step's ts (whole microseconds: the figures are worked by hand)
LEGACY_ORIGIN_US = 1_610_366_662_254_362  # a 2021 trace's ts are Unix microseconds
HOST_PID, HOST_TID = 4242, 4242

STEPS = [("ProfilerStep#1", 0, 1000), ("ProfilerStep#2", 1000, 1000), ("ProfilerStep#3", 2000, 500)]
LOADING = [(10, 200), (1010, 100)]
# (correlation, launch, stream, category, name, start, end)
GPU_PLAN = [
    (1, 300, 7, "kernel", "gemm_kernel", 320, 520),
    (2, 310, 7, "kernel", "gemm2_kernel", 530, 630),
    (4, 320, 20, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 600, 900),
    (3, 700, 7, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 710, 760),
    (5, 330, 20, "gpu_memset", "Memset (Device)", 950, 970),
    (6, 1100, 7, "kernel", "relu_kernel", 1150, 1250),
    (7, 1300, 7, "kernel", "relu_kernel", 1350, 1450),
    (8, 1310, 7, "kernel", "add_kernel", 1460, 1500),
    (9, 2100, 7, "kernel", "gemm_kernel", 2150, 2300),
]
GPU_STEP_ANNOTATIONS = [("ProfilerStep#1", 320, 970), ("ProfilerStep#2", 1150, 1500), ("ProfilerStep#3", 2150, 2300)]
LEGACY_CATEGORIES = {
    "cpu_op": "Operator",
    "user_annotation": "Operator",
    "cuda_runtime": "Runtime",
    "kernel": "Kernel",
    "gpu_memcpy": "Memcpy",
    "gpu_memset": "Memset",
}
LOADER_NAME = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def complete(category: str, name: str, ts: float, dur: float, pid, tid, args: dict) -> dict:
    return {"ph": "X", "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def gpu_events(legacy: bool, origin: float, collective_delay: int = 0, with_steps: bool = True) -> list[dict]:
    """The plan's events in one schema, in the order Kineto writes them (host first, then GPU);
    collective_delay: microseconds later the all-reduce (correlation 4) is launched; with_steps
    False: no ProfilerStep annotation (a trace of `profile()` without `step()`)."""
    category = (lambda name: LEGACY_CATEGORIES[name]) if legacy else (lambda name: name)
    external = "external id" if legacy else "External id"
    events = []
    for number, (name, start, duration) in enumerate(STEPS if with_steps else [], start=1):
        events.append(
            complete(
                category("user_annotation"), name, origin + start, duration, HOST_PID, HOST_TID, {external: number}
            )
        )
    for start, duration in LOADING:
        events.append(
            complete(category("user_annotation"), LOADER_NAME, origin + start, duration, HOST_PID, HOST_TID, {})
        )
    events.append(complete(category("cpu_op"), "aten::mm", origin + 290, 60, HOST_PID, HOST_TID, {external: 100}))
    for correlation, launch, _, kind, *_ in GPU_PLAN:
        runtime = "cudaMemcpyAsync" if kind == "gpu_memcpy" else "cudaLaunchKernel"
        launch += collective_delay if correlation == 4 else 0
        events.append(
            complete(
                category("cuda_runtime"),
                runtime,
                origin + launch,
                5,
                HOST_PID,
                HOST_TID,
                {"cbid": 211, "correlation": correlation, external: 100 + correlation},
            )
        )
    for correlation, _, stream, kind, name, start, end in GPU_PLAN:
        tid = f"stream {stream}" if legacy else stream
        args = {"device": 0, "context": 1, "stream": stream, "correlation": correlation, external: 100 + correlation}
        events.append(complete(category(kind), name, origin + start, end - start, 0, tid, args))
    if not legacy:
        for name, start, end in GPU_STEP_ANNOTATIONS if with_steps else []:
            events.append(complete("gpu_user_annotation", name, origin + start, end - start, 0, 7, {external: 0}))
        events.append({"ph": "s", "id": 1, "pid": HOST_PID, "tid": HOST_TID, "ts": origin + 300, "cat": "ac2g"})
    events.append(
        {"name": "process_name", "ph": "M", "ts": origin, "pid": HOST_PID, "tid": 0, "args": {"name": "python"}}
    )
    events.append(complete("Trace", "PyTorch Profiler (0)", origin - 100, 3000, "Spans", "PyTorch Profiler", {}))
    return events


def current_trace(
    rank: int = 0, world_size: int = 1, collective_delay: int = 0, origin: float = ORIGIN_US, with_steps: bool = True
) -> dict:
    """The plan in the current schema, as torch 2.x writes it (some keys after traceEvents);
    origin: the first step's ts (a fraction makes HTA round every time, def_trace_times)."""
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85_000_000_000}],
        "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world_size},
        "traceEvents": gpu_events(False, origin, collective_delay, with_steps),
        "traceName": "gpu.pt.trace.json",
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": BASE_NS,
    }


def legacy_trace() -> dict:
    """The plan in the 2021 schema (no distributedInfo, no baseTimeNanoseconds)."""
    return {"schemaVersion": 1, "traceEvents": gpu_events(legacy=True, origin=LEGACY_ORIGIN_US)}


def write(path: Path, trace: dict) -> Path:
    """Write trace at path, pretty-printed as Kineto does; gzip'd when path ends in .gz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(trace, indent=2)
    if path.name.endswith(".gz"):  # no time in the gzip header: the same trace, the same bytes
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
            handle.write(text.encode("utf-8"))
    else:
        path.write_text(text, encoding="utf-8")
    return path


# A trace whose texts and numbers are what a CSV file, COPY or Spark's CSV reader could get wrong
# (the readers' batches, runlens/raw_logs/trace_batches.py), as (name, what trace_events holds):
# each event is cpu_op at ts 1.5, dur 2, pid and tid 1 unless its entry says otherwise.
AWKWARD_NAMES = [
    ('quote " comma , end', 'quote " comma , end'),
    ("line\nbreak", "line\nbreak"),
    ("cr\rcrlf\r\n", "cr\rcrlf\r\n"),  # every line break kept as it is
    ("", ""),  # the empty name is text, not NULL
    (None, ""),  # no name: the empty name (trace_reading.event_row)
    ("日本 ü", "日本 ü"),
    ("\\N", "\\N"),  # what COPY's text format and some CSV readers take for NULL
    ("NULL", "NULL"),
    ("nan", "nan"),
    ("\ud800 lone surrogate", "\\ud800 lone surrogate"),  # a JSON \ud800: no UTF-8 holds it, its escape does
]
NUL_NAME = "nul\x00in"  # PostgreSQL text holds no NUL: it holds `nul\u0000in` (input_contract.md)


def awkward_events() -> list[dict]:
    """AWKWARD_NAMES' events, then: pid an object and tid a string (texts: their JSON and the
    string), ids past a bigint or of other types (stream 2**70: NULL; device "7" and correlation 7.0:
    7; External id true: NULL), a negative ts with a fraction, a ts of 1e400 (a double's infinity)."""
    events = [complete("cpu_op", name, 1.5, 2, 1, 1, {}) for name, _ in AWKWARD_NAMES]
    events.append(complete("cpu_op", "ids", 1.5, 2, {"a": [1]}, "7", {}))
    events[-1]["args"] = {"stream": 2**70, "device": "7", "correlation": 7.0, "External id": True}
    events.append(complete("cpu_op", "negative", -3.25, 0.125, 1, 1, {}))
    events.append(complete("cpu_op", "infinite", 1.5, 1, 1, 1, {}))
    events[-1]["ts"] = float("inf")
    return events


def awkward_trace(with_nul: bool = True) -> str:
    """The text of a trace of awkward_events (and NUL_NAME's event last, with_nul), its device's name
    `A"B` (json.dumps writes inf as `Infinity`, which json.loads reads back as inf)."""
    events = awkward_events() + ([complete("cpu_op", NUL_NAME, 1.5, 2, 1, 1, {})] if with_nul else [])
    return json.dumps({"deviceProperties": [{"name": 'A"B'}], "traceEvents": events})


def reader_folder(raw: Path) -> Path:
    """A folder of traces of each kind the readers meet (the raw tables' tests), and a log: the plan
    in both schemas, on two ranks, a trace cut short, the awkward trace."""
    write(raw / "gpu" / "current.pt.trace.json", current_trace())
    write(raw / "gpu" / "legacy.json.gz", legacy_trace())
    for rank in (0, 1):
        write(raw / "job" / f"rank-{rank}.pt.trace.json", current_trace(rank, 2))
    text = (raw / "gpu" / "current.pt.trace.json").read_text(encoding="utf-8")
    (raw / "broken").mkdir()
    (raw / "broken" / "cut.pt.trace.json").write_text(text[: len(text) // 2], encoding="utf-8")
    (raw / "odd").mkdir()
    (raw / "odd" / "odd.pt.trace.json").write_text(awkward_trace(), encoding="utf-8")
    (raw / "run.jsonl").write_text('{"run_id": "r", "event": "run_start", "ts": 0}\n', encoding="utf-8")
    return raw
