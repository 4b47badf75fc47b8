"""Generate the bundled runlens sample event logs (standard library only).

Writes, under data/sample/ (or --out), one JSON Lines file per run:

  from-entangled-v2__continuous-v3-beta-schedule/<run_id>.jsonl  38 runs: 36
      completed (6 per task, one resumed after a crash), 1 failed, 1 incomplete;
      wall times follow the reference profile (mean ~1.23h, tail share ~12%).
  from-entangled-v2__continuous-v2/<run_id>.jsonl[.gz]  24 baseline runs without
      run_end but with a cumulative `profile` at every marker and a final one (wall_seconds
      ~10.3h mean, sections).
  from-entangled-v2__continuous-v4-live/<run_id>.jsonl  14 runs of a sweep in progress at
      the sample's as-of time (raw_logs/as_of.py SAMPLE_AS_OF, 2025-03-10T12:00:00Z): 8 completed,
      1 failed, 4 running at different markers (one resumed after a crash) and 1 stalled (silent
      for an hour after step_1000: past its stall threshold, short of its task's longest run, so
      not abandoned); the runs of two tasks name their GPUs (`resources`); every run carries
      utilization samples of its GPUs and host every minute (v4_samples). v3's incomplete run
      went silent days before that as-of time: abandoned.
  <v3 folder>/profiler/v3-list_summation-05/<host>_<pid>.<ms>.pt.trace.json and
  <v4-live folder>/profiler/v4-list_summation-01/<host>_<pid>.<ms>.pt.trace.json.gz  a PyTorch
      profiler trace of each of these two runs (Kineto's current schema, as tensorboard_trace_handler
      names it), starting 2 minutes after the run's start so that it belongs to that run
      (def_trace_runs): 5 profiled steps and a sixth cut short, each step the same handful of GPU
      events on one stream (SAMPLE_TRACES, TRACE_GPU_EVENTS). v3's DataLoader has no workers and
      takes 40 ms of a 100 ms step (input-bound); v4's has workers and waits 2 ms in a 60 ms step,
      but its flash_fwd_kernel takes 9 ms a step where v3's took 6. No random draw.
  zz-faults/mixed_faults.jsonl  CRLF, blank lines, lines of several reject reasons (one a
      likely typo of run_end), an other event (heartbeat) and an exact duplicate of a v3
      checkpoint line.
  The first v3 run of each task also logs a `metric` line a second after each checkpoint
  (other events: kept apart, never rejected).
  runlens_collections.csv  the three collections' titles, baselines (v2 <- v3 <- v4-live) and
      links; runlens_as_of.txt  the sample's as-of time (input_contract.md, "Folder metadata").

Deterministic (random.Random(--seed), gzip mtime=0). Re-running first deletes
the *.jsonl and *.jsonl.gz files in the four folders it owns, and the traces in their profiler/*/.

Usage: python scripts/generate_sample.py [--out DIR] [--seed N]

Scale mode (benchmarks, scripts/bench.py): with --runs N it writes N synthetic runs instead,
spread over 4 collections of --tasks tasks each (``scale/sweep-a`` .. ``scale/sweep-d``; default
24), shaped like a real history: most runs ~10 events (run_start, 7 checkpoints, epoch_end,
run_end; some also a profile, a resume after a crash or a failure), a share --many-epochs-rate of
runs of --epochs epochs (2 checkpoints and an epoch_end each), and a share --incomplete-rate of
runs that stopped part-way (crashed, or still going: no run_end, at most a profile written with
`"final": false`), with a fraction --fault-rate of extra faulty lines (truncated JSON, invalid
UTF-8, exact duplicates). --layout per-run writes one file per run under
<out>/<collection-slug>/ (every 50th gzipped); --layout sharded writes files of --shard-runs runs
each, <out>/shards/shard-<index of its first run, 8 digits>.jsonl (every third one gzipped). Run
i's lines depend only on --seed and i, so both layouts hold the same lines, and
<out>/runlens_collections.csv names the collections' baselines (so the comparison marts have work).
--out is required in scale mode; it first deletes the *.jsonl and *.jsonl.gz files in the folders
scale mode owns.

  python scripts/generate_sample.py --runs 100000 --layout sharded --out /tmp/logs
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from any folder: the package runlens/ beside it

from runlens.raw_logs.as_of import SAMPLE_AS_OF, parse_as_of  # noqa: E402
from runlens.raw_logs.folder_metadata import AS_OF_FILE, COLLECTIONS_FILE  # noqa: E402
from runlens.raw_logs.folder_metadata import COLUMNS as COLLECTION_COLUMNS  # noqa: E402

V3 = "from-entangled-v2/continuous-v3-beta-schedule"
V2 = "from-entangled-v2/continuous-v2"
V4 = "from-entangled-v2/continuous-v4-live"
FAULTS_DIR = "zz-faults"  # sorts after the run folders, so the duplicate is the later copy
STEPS = tuple(range(200, 1401, 200))
EPOCH0 = datetime(1970, 1, 1, tzinfo=UTC)
PLUS_2 = timezone(timedelta(hours=2))

# task -> (mean wall hours, per-run spread width, mean tail share)
V3_TASKS = {
    "base_conversion": (1.97, 0.38, 0.142),
    "sorting_algorithms": (1.57, 0.65, 0.146),
    "multidigit_addition": (1.28, 0.75, 0.115),
    "grid_pathfinding": (0.96, 0.70, 0.105),
    "linear_equation_solving": (0.80, 0.75, 0.09),
    "list_summation": (0.80, 0.75, 0.09),
}
SPREAD = (-0.5, -0.45, -0.4, -0.3, 0.25, 1.4)  # per-run offsets: mean 0, right-skewed
OPEN_FRAC = 0.21  # share of the pre-epoch time spent in run_start -> step_200
WINDOW_SHAPE = (1.05, 0.95, 1.0, 0.94, 1.02, 0.97, 1.07)  # the 7 later windows, sum 7
# per-interval jitter j: each interval is scaled by uniform(1 - j, 1 + j)
OPEN_JITTER, WINDOW_JITTER, TAIL_JITTER = 0.1, 0.1, 0.5
TAIL_EXP = 0.6  # the tail grows more slowly than the run: tail ~ scale ** TAIL_EXP
RESUME_GAP_S = 20 * 60
V3_START = datetime(2025, 3, 3, 6, tzinfo=UTC)

V2_RUNS_PER_TASK = 4
V2_MEAN_WALL_S = 37200
V2_TASK_FACTOR = dict(zip(V3_TASKS, (1.3, 1.15, 1.05, 0.92, 0.8, 0.78), strict=True))
# profiler section shares of wall_seconds; the remaining ~4% stays unattributed
V2_SECTIONS = {
    "train": 0.18,
    "router_sampled_eval_generation": 0.72,
    "validation_loss_eval": 0.05,
    "output_writing": 0.01,
}
V2_START = datetime(2025, 2, 10, 6, tzinfo=UTC)

# Per-run quirks. ts styles: "z" (whole seconds, odd run numbers), "ms" (even ones),
# "offset" (+02:00 with milliseconds) and "epoch" (numeric Unix seconds).
QUIRKS = {
    "v3-base_conversion-03": {"resumed"},
    "v3-sorting_algorithms-02": {"offset"},
    "v3-grid_pathfinding-05": {"offset", "out_of_order"},
    "v3-list_summation-01": {"offset"},
    "v3-multidigit_addition-04": {"epoch"},
    "v3-linear_equation_solving-06": {"epoch", "out_of_order"},
    "v3-sorting_algorithms-07": {"failed"},
    "v3-multidigit_addition-07": {"incomplete"},
    "v2-grid_pathfinding-02": {"gz"},
    "v2-sorting_algorithms-04": {"gz"},
}
DUPLICATED = ("v3-list_summation-02", 600)  # (run_id, step) of the copied checkpoint


@dataclass
class Run:
    run_id: str
    collection: str
    events: list[dict] = field(default_factory=list)

    @property
    def quirks(self) -> set[str]:
        return QUIRKS.get(self.run_id, set())

    def add(self, event: str, ms: float, **fields) -> None:
        event = {"run_id": self.run_id, "event": event, "ts": int(ms), **fields}
        self.events.append(event)

    def run_start(self, ms: float, task: str, config: dict, resources: dict | None = None) -> None:
        extra = {"resources": resources} if resources is not None else {}
        self.add("run_start", ms, collection=self.collection, task=task, config=config, **extra)


def fmt_ts(ms: int, style: str) -> str | float:
    if style == "epoch":
        return ms / 1000
    dt = EPOCH0 + timedelta(milliseconds=ms)
    if style == "offset":
        dt = dt.astimezone(PLUS_2)
    text = dt.isoformat(timespec="seconds" if style == "z" else "milliseconds")
    return text.replace("+00:00", "Z")


def render(run: Run, event: dict) -> str:
    default = "ms" if int(run.run_id[-2:]) % 2 == 0 else "z"
    style = next((s for s in ("offset", "epoch") if s in run.quirks), default)
    return json.dumps({**event, "ts": fmt_ts(event["ts"], style)})


def start_ms(rng: random.Random, base: datetime, hours: float) -> float:
    return (base - EPOCH0).total_seconds() * 1000 + rng.uniform(0, hours * 3_600_000)


def config(seed: int, v3: bool, rng: random.Random) -> dict:
    cfg = {"model": {"layers": 4, "d_model": 256}, "optimizer": {"lr": 0.0003}}
    if v3:
        cfg["eval_generation_num_samples"] = 1000
    cfg["seed"] = seed
    if v3 or rng.random() < 0.5:  # v2 runs: "linear" or absent
        cfg["beta_schedule"] = "cosine" if v3 else "linear"
    return cfg


def jitter(rng: random.Random, j: float) -> float:
    return rng.uniform(1 - j, 1 + j)


def v3_windows(rng: random.Random, total_s: float, tail_s: float):
    """Opening block + 7 later windows (seconds), and the epoch_end -> run_end tail."""
    pre = total_s - tail_s
    opening = pre * OPEN_FRAC * jitter(rng, OPEN_JITTER)
    window = pre * (1 - OPEN_FRAC) / len(WINDOW_SHAPE)
    later = [window * w * jitter(rng, WINDOW_JITTER) for w in WINDOW_SHAPE]
    return [opening, *later], tail_s * jitter(rng, TAIL_JITTER)


def v3_run(rng: random.Random, task: str, k: int, offset: float) -> Run:
    run = Run(f"v3-{task}-{k:02d}", V3)
    mean_h, width, tail_share = V3_TASKS[task]
    scale = 1 + width * offset
    total_s = mean_h * 3600 * scale
    tail_s = total_s * tail_share * scale ** (TAIL_EXP - 1)
    if "resumed" in run.quirks:  # the restart gap counts in the planned wall time
        total_s -= RESUME_GAP_S
    windows, tail = v3_windows(rng, total_s, tail_s)
    t = start_ms(rng, V3_START, 44)
    cfg = config(100 + k, True, rng)
    run.run_start(t, task, cfg)
    for step, window in zip(STEPS, windows[:-1], strict=True):
        t += window * 1000
        run.add("checkpoint", t, step=step)
        if "failed" in run.quirks and step == 600:
            run.add("run_end", t + window * 400, status="failed")
            return run
        if "incomplete" in run.quirks and step == 1000:
            return run
        if "resumed" in run.quirks and step == 800:  # crash, restart, step_1000 redone
            t += RESUME_GAP_S * 1000
            run.run_start(t, task, {**cfg, "resumed_from_step": 800})
    t += windows[-1] * 1000
    run.add("epoch_end", t, epoch=1, step=1500)
    status = {} if k % 3 == 0 else {"status": "completed"}
    run.add("run_end", t + tail * 1000, **status)
    return run


def v2_run(rng: random.Random, task: str, k: int) -> Run:
    run = Run(f"v2-{task}-{k:02d}", V2)
    wall = V2_MEAN_WALL_S * V2_TASK_FACTOR[task] * rng.uniform(0.9, 1.1)
    t0 = t = start_ms(rng, V2_START, 40)
    run.run_start(t, task, config(100 + k, False, rng))
    windows, _ = v3_windows(rng, wall * 0.9, 0.0)  # the last ~10%: final writing
    markers = []
    for step, window in zip(STEPS, windows[:-1], strict=True):
        t += window * 1000
        markers.append((t, "checkpoint", {"step": step}))
    markers.append((t + windows[-1] * 1000, "epoch_end", {"epoch": 1, "step": 1500}))
    sections = {k: round(wall * v * jitter(rng, 0.04), 1) for k, v in V2_SECTIONS.items()}
    t = t0 + (wall + rng.uniform(1, 5)) * 1000
    # the profiler's cumulative summary after every marker (final: false), as runlens' writer writes
    # one at each checkpoint: training and evaluation at an even pace over the whole run, the
    # output written after the epoch end
    for at, event, fields in markers:
        run.add(event, at, **fields)
        done = (at - t0) / (t - t0)
        so_far = {k: min(round(v * done, 1), v) if k != "output_writing" else 0.0 for k, v in sections.items()}
        run.add("profile", at, wall_seconds=round((at - t0) / 1000, 1), sections=so_far, final=False)
    run.add("profile", t, wall_seconds=round(wall, 1), sections=sections)
    return run


def v3_runs(seed: int) -> list[Run]:
    rng = random.Random(f"{seed}:{V3}")
    runs = []
    for task in V3_TASKS:
        for k, offset in enumerate(rng.sample(SPREAD, len(SPREAD)), start=1):
            runs.append(v3_run(rng, task, k, offset))
        extra = len(SPREAD) + 1  # a 7th run only for the failed and incomplete ones
        if f"v3-{task}-{extra:02d}" in QUIRKS:
            runs.append(v3_run(rng, task, extra, 0.0))
    return runs


def v2_runs(seed: int) -> list[Run]:
    rng = random.Random(f"{seed}:{V2}")
    ks = range(1, V2_RUNS_PER_TASK + 1)
    return [v2_run(rng, task, k) for task in V2_TASK_FACTOR for k in ks]


# The live collection: a sweep in progress at SAMPLE_AS_OF. Per task: the GPUs its runs name
# (None: they name none) and each run's fate: "done", "failed" (run_end failed after step_600),
# ("running", step) cut after that checkpoint a few minutes before the as-of time,
# ("resumed", step): crashed after step_400, restarted RESUME_GAP_S later and cut after step,
# ("stalled", step): cut after step, silent since for V4_STALL_S.
V4_TASKS = {
    "base_conversion": (
        {"gpus": 8, "gpu_type": "H100"},
        ("done", "done", "done", "done", ("running", 600), ("stalled", 1000)),
    ),
    "grid_pathfinding": (
        {"gpus": 4, "gpu_type": "H100"},
        ("done", "done", "done", ("running", 200), ("resumed", 800)),
    ),
    "list_summation": (None, ("done", "failed", ("running", 1000))),
}
# base_conversion runs a quarter slower than in v3 (v4's baseline): the sample's one regressed task
V4_SLOWDOWN = {"base_conversion": 1.25}
V4_START = datetime(2025, 3, 10, 0, tzinfo=UTC)
V4_STALL_S = 3600
V4_CRASH_STEP = 400


def v4_run(rng: random.Random, task: str, k: int, fate, resources: dict | None) -> Run:
    """One run of the live collection: every marker of a whole run is drawn (as for v3), then the
    run is placed in time: a finished run starts in the sweep's first 3 hours, a live one so that
    its last marker lies its silence before the as-of time."""
    run = Run(f"v4-{task}-{k:02d}", V4)
    mean_h, width, tail_share = V3_TASKS[task]
    scale = 1 + width * rng.choice((-0.4, -0.2, 0.0, 0.2, 0.4))
    total_s = mean_h * 3600 * scale * V4_SLOWDOWN.get(task, 1.0)
    windows, tail = v3_windows(rng, total_s, total_s * tail_share * scale ** (TAIL_EXP - 1))
    kind, cut_step = (fate, None) if isinstance(fate, str) else fate
    # offsets (ms from the start) of every marker of the run as drawn: (event, offset, fields)
    markers, t = [], 0.0
    for step, window in zip(STEPS, windows[:-1], strict=True):
        t += window * 1000
        markers.append(("checkpoint", t, {"step": step}))
        if kind == "failed" and step == 600:
            markers.append(("run_end", t + window * 400, {"status": "failed"}))
            break
        if step == cut_step:
            break
        if kind == "resumed" and step == V4_CRASH_STEP:
            t += RESUME_GAP_S * 1000
            markers.append(("run_start", t, {}))
    else:
        t += windows[-1] * 1000
        markers.append(("epoch_end", t, {"epoch": 1, "step": 1500}))
        markers.append(("run_end", t + tail * 1000, {"status": "completed"}))
    if kind in ("done", "failed"):
        t0 = (V4_START - EPOCH0).total_seconds() * 1000 + rng.uniform(0, 3 * 3_600_000)
    else:
        silence_s = V4_STALL_S if kind == "stalled" else rng.uniform(3 * 60, 8 * 60)
        as_of_ms = (parse_as_of(SAMPLE_AS_OF).replace(tzinfo=UTC) - EPOCH0).total_seconds() * 1000
        t0 = as_of_ms - silence_s * 1000 - markers[-1][1]
    cfg = config(100 + k, True, rng)
    run.run_start(t0, task, cfg, resources)
    for event, offset, fields in markers:
        if event == "run_start":
            run.run_start(t0 + offset, task, {**cfg, "resumed_from_step": V4_CRASH_STEP}, resources)
        else:
            run.add(event, t0 + offset, **fields)
    return run


# Utilization samples of the live collection (input_contract.md, "Utilization samples"), one tick
# every V4_SAMPLE_EVERY_S from V4_SAMPLE_EVERY_S / 2 after each run_start to the session's last
# event: every GPU (the run's resources.gpus, else V4_SAMPLED_GPUS, which the samples then show)
# and the host. A GPU is V4_BUSY % busy while training, V4_START_UP % in a session's first
# V4_START_UP_S (loading the data and the model) and V4_TAIL_BUSY % in the final tail after the
# epoch end (writing outputs), each with Gaussian noise; nothing is sampled while a run is down or
# stalled. Its own random stream per run, so the other figures of the sample do not move.
V4_SAMPLE_EVERY_S = 60
V4_SAMPLED_GPUS = 2
V4_BUSY, V4_START_UP, V4_TAIL_BUSY = 87.0, 6.0, 9.0
V4_START_UP_S = 8 * 60


def v4_samples(seed: int, run: Run, resources: dict | None) -> None:
    rng = random.Random(f"{seed}:{V4}:samples:{run.run_id}")
    gpus = (resources or {}).get("gpus", V4_SAMPLED_GPUS)
    events = sorted(run.events, key=lambda event: event["ts"])
    sessions, current = [], None
    for event in events:
        if event["event"] == "run_start":
            current = [event["ts"], event["ts"], None]
            sessions.append(current)
        current[1] = event["ts"]
        if event["event"] == "epoch_end":
            current[2] = event["ts"]
    for started, last, epoch_end in sessions:
        at = started + V4_SAMPLE_EVERY_S * 500
        while at <= last:
            if epoch_end is not None and at >= epoch_end:
                base = V4_TAIL_BUSY
            elif at - started < V4_START_UP_S * 1000:
                base = V4_START_UP
            else:
                base = V4_BUSY
            for gpu in range(gpus):
                busy = min(max(round(base + rng.gauss(0, 3), 1), 0.0), 100.0)
                measurements = {
                    "gpu_utilization": busy,
                    "gpu_memory_used": round(4000 + 560 * busy + rng.uniform(-200, 200)),
                    "gpu_power": round(90 + 5.6 * busy, 1),
                }
                run.add("sample", at, gpu=gpu, measurements=measurements)
            host = {"cpu_utilization": round(20 + rng.uniform(0, 10), 1), "process_memory_used": 18_000}
            run.add("sample", at, measurements=host)
            at += V4_SAMPLE_EVERY_S * 1000


def v4_runs(seed: int) -> list[Run]:
    rng = random.Random(f"{seed}:{V4}")
    runs = []
    for task, (resources, fates) in V4_TASKS.items():
        for k, fate in enumerate(fates, start=1):
            run = v4_run(rng, task, k, fate, resources)
            v4_samples(seed, run, resources)
            runs.append(run)
    return runs


# Profiler traces (input_contract.md, "Profiler traces"): one run of list_summation in v3 and in
# v4-live was profiled with torch.profiler (schedule wait=1, warmup=1, active=5; tensorboard_trace_handler
# into profiler/<run_id>/ below its collection's folder), written here in Kineto's current schema
# without a random draw, so no other figure of the sample moves. Each trace holds PROFILED_STEPS
# whole steps, ProfilerStep#2 .. #6, and #7, which the profiler cuts short (TRACE_LAST_STEP_US,
# its DataLoader call cut with it, nothing launched). Every step of a trace is the same (times in
# microseconds from the step's start): the host fetches a batch (the DataLoader's `__next__`, from
# 100 to 100 + loading), then launches the step's GPU events TRACE_LAUNCH_GAP_US apart from
# TRACE_LAUNCH_AT_US after the batch came (each launch a `cuda_runtime` call of TRACE_LAUNCH_US
# inside one `cpu_op`); they run back to back on stream 7, the first TRACE_GPU_LAG_US after its
# launch, each TRACE_KERNEL_GAP_US after the one before. v3 loads in the training process
# (`_SingleProcessDataLoaderIter`): 40 ms of its 100 ms steps, input-bound; v4 has workers
# (`_MultiProcessingDataLoaderIter`) and waits 2 ms for a ready batch in a 60 ms step, but its
# attention kernel (flash_fwd_kernel) takes 9 ms where v3's took 6.
# trace -> (run, loader iterator, step microseconds, loading microseconds, file gzipped)
SAMPLE_TRACES = {
    V3: ("v3-list_summation-05", "_SingleProcessDataLoaderIter", 100_000, 40_000, False),
    V4: ("v4-list_summation-01", "_MultiProcessingDataLoaderIter", 60_000, 2_000, True),
}
# a step's GPU events in order: (category, name, microseconds in v3, in v4)
TRACE_GPU_EVENTS = (
    ("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 800, 800),
    ("gpu_memset", "Memset (Device)", 200, 200),
    ("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 9_000, 9_000),
    ("kernel", "flash_fwd_kernel", 6_000, 9_000),
    ("kernel", "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", 12_000, 12_000),
    ("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 21_000, 21_000),
)
PROFILED_STEPS, FIRST_PROFILED_STEP = 5, 2
TRACE_AFTER_START_S = 120  # the profiler's first step, after the run_start (data and model loaded)
TRACE_ORIGIN_US = 3_600_000_000  # the first step's ts on the trace's own clock (baseTimeNanoseconds + ts)
TRACE_LOADER_AT_US, TRACE_LAUNCH_AT_US, TRACE_LAUNCH_GAP_US, TRACE_LAUNCH_US = 100, 200, 20, 10
TRACE_GPU_LAG_US, TRACE_KERNEL_GAP_US, TRACE_LAST_STEP_US = 50, 5, 1_000
TRACE_PID, TRACE_STREAM = 3187, 7
# the runtime call that launches each category of GPU event, and its CUPTI callback id
TRACE_RUNTIME_CALLS = {
    "gpu_memcpy": ("cudaMemcpyAsync", 41),
    "gpu_memset": ("cudaMemsetAsync", 51),
    "kernel": ("cudaLaunchKernel", 211),
}


def trace_event(category: str, name: str, ts: int, dur: int, pid, tid, args: dict) -> dict:
    return {"ph": "X", "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def trace_events(collection: str) -> list[dict]:
    """The trace's events in the order Kineto writes them: the host's, then the GPU's."""
    _, iterator, step_us, loading_us, _ = SAMPLE_TRACES[collection]
    durations = [v3_us if collection == V3 else v4_us for _, _, v3_us, v4_us in TRACE_GPU_EVENTS]
    loader = f"enumerate(DataLoader)#{iterator}.__next__"
    host, gpu, correlation = [], [], 0
    for number in range(PROFILED_STEPS + 1):
        start = TRACE_ORIGIN_US + number * step_us
        label = f"ProfilerStep#{FIRST_PROFILED_STEP + number}"
        external = 10 * (number + 1)
        if number == PROFILED_STEPS:  # cut short by the profiler while fetching its batch
            host.append(trace_event("user_annotation", label, start, TRACE_LAST_STEP_US, TRACE_PID, TRACE_PID, {}))
            loading = TRACE_LAST_STEP_US - TRACE_LOADER_AT_US
            host.append(
                trace_event("user_annotation", loader, start + TRACE_LOADER_AT_US, loading, TRACE_PID, TRACE_PID, {})
            )
            break
        host.append(
            trace_event("user_annotation", label, start, step_us, TRACE_PID, TRACE_PID, {"External id": external})
        )
        host.append(
            trace_event("user_annotation", loader, start + TRACE_LOADER_AT_US, loading_us, TRACE_PID, TRACE_PID, {})
        )
        launch = start + TRACE_LOADER_AT_US + loading_us + TRACE_LAUNCH_AT_US
        launches_us = (len(durations) - 1) * TRACE_LAUNCH_GAP_US + TRACE_LAUNCH_US
        host.append(
            trace_event(
                "cpu_op", "aten::mm", launch - 10, launches_us + 20, TRACE_PID, TRACE_PID, {"External id": external + 1}
            )
        )
        gpu_at = launch + TRACE_GPU_LAG_US
        step_gpu_start = gpu_at
        for (category, name, _, _), duration in zip(TRACE_GPU_EVENTS, durations, strict=True):
            correlation += 1
            runtime, cbid = TRACE_RUNTIME_CALLS[category]
            ids = {"correlation": correlation, "External id": external + 1}
            host.append(
                trace_event(
                    "cuda_runtime", runtime, launch, TRACE_LAUNCH_US, TRACE_PID, TRACE_PID, {"cbid": cbid, **ids}
                )
            )
            device = {"device": 0, "context": 1, "stream": TRACE_STREAM, **ids}
            gpu.append(trace_event(category, name, gpu_at, duration, 0, TRACE_STREAM, device))
            launch += TRACE_LAUNCH_GAP_US
            gpu_at += duration + TRACE_KERNEL_GAP_US
        step_gpu_end = gpu_at - TRACE_KERNEL_GAP_US
        gpu.append(
            trace_event(
                "gpu_user_annotation",
                label,
                step_gpu_start,
                step_gpu_end - step_gpu_start,
                0,
                TRACE_STREAM,
                {"External id": external},
            )
        )
    meta = {
        "name": "process_name",
        "ph": "M",
        "ts": TRACE_ORIGIN_US,
        "pid": TRACE_PID,
        "tid": 0,
        "args": {"name": "python"},
    }
    end = host[-1]["ts"] + host[-1]["dur"]
    span = trace_event(
        "Trace",
        "PyTorch Profiler (0)",
        TRACE_ORIGIN_US - 100,
        end - TRACE_ORIGIN_US + 100,
        "Spans",
        "PyTorch Profiler",
        {},
    )
    return [*host, *gpu, meta, span]


def sample_trace(collection: str, run: Run) -> tuple[str, bytes]:
    """The trace of one profiled run: its path below the collection's folder, and its bytes. Its first
    step starts TRACE_AFTER_START_S after the run's first run_start (def_trace_runs: within the run's
    time window, after every other run of the folder whose window holds it started)."""
    run_id, _, _, _, gz = SAMPLE_TRACES[collection]
    first_step_ns = (min(event["ts"] for event in run.events) + TRACE_AFTER_START_S * 1000) * 1_000_000
    header = {
        "schemaVersion": 1,
        "deviceProperties": [
            {
                "id": 0,
                "name": "NVIDIA H100 80GB HBM3",
                "totalGlobalMem": 85_045_477_376,
                "computeMajor": 9,
                "numSms": 132,
            }
        ],
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
    }
    footer = {"traceName": "", "displayTimeUnit": "ms", "baseTimeNanoseconds": first_step_ns - TRACE_ORIGIN_US * 1000}
    # as Kineto writes it: the header's keys, traceEvents one event a line, then the closing keys
    keys = [f'  "{key}": {json.dumps(value)},' for key, value in header.items()]
    events = ",\n".join(f"    {json.dumps(event)}" for event in trace_events(collection))
    closing = ",\n".join(f'  "{key}": {json.dumps(value)}' for key, value in footer.items())
    text = "{\n" + "\n".join(keys) + '\n  "traceEvents": [\n' + events + "\n  ],\n" + closing + "\n}\n"
    written_ms = (first_step_ns + 10**9) // 1_000_000  # tensorboard_trace_handler: <host>_<pid>.<ms>
    name = f"node-{int(run_id[-2:]):02d}_{TRACE_PID}.{written_ms}.pt.trace.json" + (".gz" if gz else "")
    data = text.encode()
    return f"{slug(collection)}/profiler/{run_id}/{name}", gzip.compress(data, mtime=0) if gz else data


def write_traces(out: Path, runs: list[Run]) -> None:
    by_id = {run.run_id: run for run in runs}
    for collection, (run_id, *_) in SAMPLE_TRACES.items():
        path, data = sample_trace(collection, by_id[run_id])
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)


def run_lines(run: Run) -> list[str]:
    events = list(run.events)
    if "out_of_order" in run.quirks:  # step_1400 after epoch_end; the pipeline sorts
        events[-3], events[-2] = events[-2], events[-3]
    lines = []
    for event in events:
        lines.append(render(run, event))
        if event["event"] == "checkpoint" and run.run_id.startswith("v3-") and run.run_id.endswith("-01"):
            lines.append(render(run, metric_event(event)))
    return lines


def metric_event(checkpoint: dict) -> dict:
    """A training loop's metric line a second after a checkpoint: an other event, which runlens keeps
    apart (fct_other_events) and no figure uses. No random draw, so the sample's figures stay."""
    step = checkpoint["step"]
    loss = round(3.0 * 500 / (500 + step), 4)
    ts = checkpoint["ts"] + 1000
    return {"run_id": checkpoint["run_id"], "event": "metric", "ts": ts, "step": step, "loss": loss}


def fault_lines(runs: list[Run]) -> list[bytes]:
    """Lines of several reject reasons, an other event, two blank lines and one exact duplicate."""
    run = next(r for r in runs if r.run_id == DUPLICATED[0])
    dup = next(e for e in run.events if e.get("step") == DUPLICATED[1])
    return [
        b'{"run_id": "r',
        b'{"run_id": "x\xff", "event": "checkpoint", "ts": "2025-03-03T10:00:00Z", "step": 200}',
        b'["v3-base_conversion-01", "checkpoint", "2025-03-03T10:00:00Z", 200]',
        b"",
        b'{"run_id": "v3-base_conversion-01", "event": "checkpoint", "ts": "2025-03-03T10:00:00Z"}',
        b'{"run_id": "v3-base_conversion-01", "event": "heartbeat", "ts": "2025-03-03T10:00:05Z"}',
        b'{"run_id": "v3-base_conversion-01", "event": "Run_End", "ts": "2025-03-03T10:00:06Z"}',
        b"   ",
        b'{"run_id": "v3-base_conversion-01", "event": "checkpoint", "ts": "yesterday", "step": 400}',
        render(run, dup).encode(),
    ]


def slug(collection: str) -> str:
    return collection.replace("/", "__")


# the sample's collections file: (collection, title, baseline); links point at example.org
SAMPLE_COLLECTIONS = (
    (V3, "from-entangled-v2 continuous-v3 beta-schedule", V2),
    (V2, "from-entangled-v2 continuous-v2", None),
    (V4, "from-entangled-v2 continuous-v4 live", V3),
)


def write_collections(path: Path, rows: list[tuple]) -> None:
    """A collections file (folder_metadata.py) with one row per (collection, title, baseline, design
    link, results link); LF line ends, so the file is the same on every machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLLECTION_COLUMNS)
        writer.writerows([["" if value is None else value for value in row] for row in rows])


def write_sample_metadata(out: Path) -> None:
    links = "https://example.org/runlens/{}/{}"
    write_collections(
        out / COLLECTIONS_FILE,
        [
            (collection, title, baseline, links.format(collection, "design"), links.format(collection, "results"))
            for collection, title, baseline in SAMPLE_COLLECTIONS
        ],
    )
    (out / AS_OF_FILE).write_text(SAMPLE_AS_OF + "\n", encoding="utf-8")


def clean(out: Path) -> None:
    for sub in (slug(V3), slug(V2), slug(V4), FAULTS_DIR):
        for pattern in ("*.jsonl", "*.jsonl.gz"):
            for path in (out / sub).glob(pattern):
                path.unlink()
        for path in (out / sub).glob("profiler/*/*.pt.trace.json*"):
            path.unlink()


def write_lines(path: Path, lines: list[bytes], eol=b"\n", gz=False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(line + eol for line in lines)
    if gz:
        path = path.with_name(path.name + ".gz")
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)


def write_run(out: Path, run: Run) -> None:
    path = out / slug(run.collection) / f"{run.run_id}.jsonl"
    write_lines(path, [line.encode() for line in run_lines(run)], gz="gz" in run.quirks)


# ---------------------------------------------------------------------------------------------
# Scale mode: many synthetic runs for benchmarks (--runs N). Built for speed: times are integer
# milliseconds, lines are formatted as strings (no json.dumps, no datetime per event).

# (collection, speed factor, the config keys that tell it from the others)
SCALE_COLLECTIONS = (
    ("scale/sweep-a", 1.0, '"optimizer": {"lr": 0.0003}, "beta_schedule": "linear"'),
    ("scale/sweep-b", 0.9, '"optimizer": {"lr": 0.0003}, "beta_schedule": "cosine"'),
    ("scale/sweep-c", 1.1, '"optimizer": {"lr": 0.0006}, "beta_schedule": "cosine"'),
    ("scale/sweep-d", 0.8, '"optimizer": {"lr": 0.0003}, "beta_schedule": "cosine", "eval_samples": 500'),
)
SCALE_BASELINES = {"scale/sweep-b": "scale/sweep-a", "scale/sweep-c": "scale/sweep-a", "scale/sweep-d": "scale/sweep-b"}
# a new sweep beside the history (the benchmark's refresh after 1% new runs in one collection):
# its runs are shaped as sweep-a's, with a config key of their own
SCALE_NEW_SWEEP = ("scale/sweep-new", 1.0, '"optimizer": {"lr": 0.0003}, "beta_schedule": "linear", "warmup": 500')
SCALE_START_MS = 1_743_465_600_000  # 2025-04-01T00:00:00Z
SCALE_SPAN_MS = 60 * 86_400_000  # runs start within 60 days
SHARD_DIR = "shards"
# per-run odds of a fate (else completed or incomplete, ScaleShape) and of the extras
P_FAILED, P_RESUMED = 0.015, 0.02
P_PROFILE, P_OUT_OF_ORDER = 0.25, 0.02
EPOCH_STEPS = 200  # a many-epoch run's steps per epoch: checkpoints at its half and its end


@dataclass(frozen=True)
class ScaleShape:
    """What the runs of the scale data set are like: tasks per collection, the share of runs that
    stopped part-way (no run_end), the share of runs of many epochs, and their epochs."""

    tasks: int = 24
    incomplete_rate: float = 0.03
    many_epochs_rate: float = 0.04
    epochs: int = 20

    def task(self, number: int) -> tuple[str, tuple[float, float, float]]:
        """Task number's name and (mean wall hours, spread width, tail share): the sample's six
        tasks, then variants of them, each 5% slower than the one six before."""
        base, variant = list(V3_TASKS)[number % len(V3_TASKS)], number // len(V3_TASKS)
        mean_h, width, tail_share = V3_TASKS[base]
        return (base if variant == 0 else f"{base}_v{variant}"), (mean_h * (1 + 0.05 * variant), width, tail_share)


DEFAULT_SHAPE = ScaleShape()
# ts styles and their cumulative odds: milliseconds + Z, whole seconds + Z, +02:00, epoch seconds
SCALE_STYLES = ((0.70, "ms"), (0.90, "z"), (0.95, "offset"), (1.0, "epoch"))
PER_RUN_GZIP_EVERY, SHARD_GZIP_EVERY = 50, 3
_DAYS: dict[int, str] = {}


def scale_ts(ms: int, style: str) -> str:
    """The JSON text of a `ts` value at ms (Unix milliseconds) in a style, without datetime."""
    if style == "epoch":
        return f"{ms // 1000}.{ms % 1000:03d}"
    if style == "offset":
        ms += 7_200_000
    seconds, frac = divmod(ms, 1000)
    day, of_day = divmod(seconds, 86_400)
    date = _DAYS.get(day)
    if date is None:
        date = _DAYS[day] = (EPOCH0 + timedelta(days=day)).date().isoformat()
    hour, rest = divmod(of_day, 3600)
    minute, second = divmod(rest, 60)
    if style == "z":
        return f'"{date}T{hour:02d}:{minute:02d}:{second:02d}Z"'
    zone = "+02:00" if style == "offset" else "Z"
    return f'"{date}T{hour:02d}:{minute:02d}:{second:02d}.{frac:03d}{zone}"'


@dataclass
class ScaleRun:
    index: int
    run_id: str
    collection: str
    style: str
    lines: list[bytes]  # the run's lines, faulty extra lines included, without line ends
    end_ms: int  # the time of its final run_end, else of its last event

    @property
    def gz(self) -> bool:
        return self.index % PER_RUN_GZIP_EVERY == 7

    @property
    def per_run_path(self) -> str:
        return f"{slug(self.collection)}/{self.run_id}.jsonl" + (".gz" if self.gz else "")


def scale_markers(rng: random.Random, total_s: float, tail_s: float, epochs: int) -> tuple[list[tuple], float]:
    """The planned markers before the tail, (event, step, epoch, seconds since the marker before),
    and the tail: 7 checkpoints and an epoch_end for a run of one epoch (the sample's v3 shape),
    else per epoch 2 checkpoints and an epoch_end, the run as long as `epochs` / 4 such runs."""
    if epochs == 1:
        windows, tail = v3_windows(rng, total_s, tail_s)
        planned = [("checkpoint", step, None, window) for step, window in zip(STEPS, windows[:-1], strict=True)]
        return [*planned, ("epoch_end", 1500, 1, windows[-1])], tail
    pre, planned = (total_s - tail_s) * epochs / 4, []
    for epoch in range(1, epochs + 1):
        for step in (epoch * EPOCH_STEPS - EPOCH_STEPS // 2, epoch * EPOCH_STEPS):
            planned.append(("checkpoint", step, None, pre / (2 * epochs) * 0.9 * jitter(rng, WINDOW_JITTER)))
        planned.append(("epoch_end", epoch * EPOCH_STEPS, epoch, pre / epochs * 0.1 * jitter(rng, WINDOW_JITTER)))
    return planned, tail_s * jitter(rng, TAIL_JITTER)


def scale_run(
    seed: int, index: int, fault_rate: float = 0.001, shape: ScaleShape = DEFAULT_SHAPE, new_sweep: bool = False
) -> ScaleRun:
    """Run number index of the scale data set: a function of (seed, index), the shape and new_sweep
    only. The runs cycle through SCALE_COLLECTIONS, and within one through its tasks; with new_sweep
    every run is in SCALE_NEW_SWEEP, cycling through its tasks."""
    rng = random.Random((seed << 40) | index)
    if new_sweep:
        (collection, speed, cfg), number = SCALE_NEW_SWEEP, index
    else:
        count = len(SCALE_COLLECTIONS)
        (collection, speed, cfg), number = SCALE_COLLECTIONS[index % count], index // count
    task, (mean_h, width, tail_share) = shape.task(number % shape.tasks)
    run_id = f"{collection.rsplit('/', 1)[-1]}-{task}-{index:07d}"
    draw = rng.random()
    style = next(name for odds, name in SCALE_STYLES if draw < odds)
    quantum = 1000 if style == "z" else 1
    scale = (1 + width * SPREAD[rng.randrange(len(SPREAD))]) * rng.uniform(0.95, 1.05)
    total_s = mean_h * 3600 * speed * scale
    epochs = shape.epochs if rng.random() < shape.many_epochs_rate else 1
    planned, tail = scale_markers(rng, total_s, total_s * tail_share * scale ** (TAIL_EXP - 1), epochs)
    fate = rng.random()
    failed = fate < P_FAILED
    incomplete = P_FAILED <= fate < P_FAILED + shape.incomplete_rate
    resumed = not (failed or incomplete) and rng.random() < P_RESUMED
    # where a failed run ends, an incomplete one stops, a resumed one restarts: after its 3rd
    # checkpoint, after a random marker before its last, after its 4th checkpoint
    fail_at, stop_at, resume_at = 2, rng.randrange(1, len(planned) - 1), 3
    head = f'{{"run_id": "{run_id}", "event": "'
    config = f'{{"model": {{"layers": 4, "d_model": 256}}, {cfg}, "seed": {rng.randrange(5)}'
    start_fields = f', "collection": "{collection}", "task": "{task}", "config": {config}'
    lines: list[str] = []
    t = SCALE_START_MS + rng.randrange(SCALE_SPAN_MS)

    def at(ms: float) -> int:
        ms = int(ms)
        return ms - ms % quantum

    t0 = t = at(t)
    end_ms = None
    lines.append(f'{head}run_start", "ts": {scale_ts(t, style)}{start_fields}}}}}')
    for number, (event, step, epoch, window) in enumerate(planned):
        t = at(t + window * 1000)
        epoch_field = f', "epoch": {epoch}' if epoch is not None else ""
        lines.append(f'{head}{event}", "ts": {scale_ts(t, style)}{epoch_field}, "step": {step}}}')
        if failed and number == fail_at:
            end_ms = at(t + window * 400)
            lines.append(f'{head}run_end", "ts": {scale_ts(end_ms, style)}, "status": "failed"}}')
            break
        if incomplete and number == stop_at:
            break
        if resumed and number == resume_at:  # crash, restart after a gap
            t = at(t + RESUME_GAP_S * 1000 * rng.uniform(0.5, 1.5))
            lines.append(f'{head}run_start", "ts": {scale_ts(t, style)}{start_fields}, "resumed_from_step": {step}}}}}')
    else:
        end_ms = at(t + tail * 1000)
        status = ', "status": "completed"' if index % 3 else ""
        lines.append(f'{head}run_end", "ts": {scale_ts(end_ms, style)}{status}}}')
        if rng.random() < P_OUT_OF_ORDER:  # the last checkpoint after the epoch_end; the pipeline sorts
            lines[-3], lines[-2] = lines[-2], lines[-3]
    last = end_ms if end_ms is not None else t
    if (end_ms is not None and not failed and rng.random() < P_PROFILE) or (incomplete and rng.random() < 0.5):
        # an incomplete run's profile was written while it ran (as runlens' writer does): not final
        wall = (last - t0) / 1000 - rng.uniform(5, 60) if end_ms is not None else (last - t0) / 1000
        sections = ", ".join(f'"{name}": {wall * share * jitter(rng, 0.04):.1f}' for name, share in V2_SECTIONS.items())
        last = at(last + rng.uniform(1000, 5000))
        final = ', "final": false' if incomplete else ""
        fields = f'"wall_seconds": {wall:.1f}, "sections": {{{sections}}}{final}'
        lines.append(f'{head}profile", "ts": {scale_ts(last, style)}, {fields}}}')
    encoded = []
    for line in lines:
        data = line.encode()
        encoded.append(data)
        if fault_rate and rng.random() < fault_rate:  # an extra faulty line after this one
            kind = rng.randrange(3)
            if kind == 0:  # truncated JSON
                encoded.append(data[: len(data) // 2])
            elif kind == 1:  # invalid UTF-8 (in the run_id: a reader that lets it through sees another run)
                encoded.append(data.replace(b'", "event"', b'\xff", "event"', 1))
            else:  # an exact duplicate
                encoded.append(data)
    return ScaleRun(index, run_id, collection, style, encoded, end_ms if end_ms is not None else last)


def write_scale(
    out: Path,
    seed: int,
    first: int,
    count: int,
    layout: str = "per-run",
    shard_runs: int = 10_000,
    fault_rate: float = 0.001,
    shape: ScaleShape = DEFAULT_SHAPE,
    new_sweep: bool = False,
) -> dict:
    """Write runs first .. first+count-1 (in SCALE_NEW_SWEEP with new_sweep); returns counts (runs,
    files, lines, bytes on disk).

    per-run: <out>/<collection-slug>/<run_id>.jsonl[.gz]; sharded: <out>/shards/shard-<first run
    index of the shard, 8 digits>.jsonl[.gz], a shard holding the runs of one block of shard_runs
    run indices (so runs added later with a higher first index land in new shards)."""
    stats = {"runs": 0, "files": 0, "lines": 0, "bytes": 0}

    def emit(path: Path, chunks: list[bytes], gz: bool) -> None:
        data = b"\n".join(chunks) + b"\n"
        stats["lines"] += len(chunks)
        if gz:
            path = path.with_name(path.name + ".gz")
            data = gzip.compress(data, compresslevel=6, mtime=0)
        path.write_bytes(data)
        stats["files"] += 1
        stats["bytes"] += len(data)

    if layout == "per-run":
        for collection, _, _ in (SCALE_NEW_SWEEP,) if new_sweep else SCALE_COLLECTIONS:
            (out / slug(collection)).mkdir(parents=True, exist_ok=True)
        for index in range(first, first + count):
            run = scale_run(seed, index, fault_rate, shape, new_sweep)
            emit(out / slug(run.collection) / f"{run.run_id}.jsonl", run.lines, run.gz)
            stats["runs"] += 1
        return stats
    if layout != "sharded":
        raise ValueError(f"unknown layout {layout!r}")
    (out / SHARD_DIR).mkdir(parents=True, exist_ok=True)
    index, end = first, first + count
    while index < end:
        block = index // shard_runs
        stop = min(end, (block + 1) * shard_runs)
        chunks: list[bytes] = []
        for number in range(index, stop):
            chunks.extend(scale_run(seed, number, fault_rate, shape, new_sweep).lines)
        emit(out / SHARD_DIR / f"shard-{index:08d}.jsonl", chunks, block % SHARD_GZIP_EVERY == SHARD_GZIP_EVERY - 1)
        stats["runs"] += stop - index
        index = stop
    return stats


def write_scale_collections(out: Path) -> None:
    """<out>/runlens_collections.csv: the scale collections with their baselines."""
    write_collections(
        out / COLLECTIONS_FILE,
        [
            (collection, collection.replace("/", " "), SCALE_BASELINES.get(collection), None, None)
            for collection, _, _ in SCALE_COLLECTIONS
        ],
    )


def clean_scale(out: Path) -> None:
    for sub in [slug(c) for c, _, _ in (*SCALE_COLLECTIONS, SCALE_NEW_SWEEP)] + [SHARD_DIR]:
        for pattern in ("*.jsonl", "*.jsonl.gz"):
            for path in (out / sub).glob(pattern):
                path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="output folder (default data/sample)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=None, help="scale mode: write this many synthetic runs")
    parser.add_argument("--layout", choices=("per-run", "sharded"), default="per-run", help="scale mode")
    parser.add_argument("--shard-runs", type=int, default=10_000, help="scale mode: runs per shard file")
    parser.add_argument("--fault-rate", type=float, default=0.001, help="scale mode: share of extra faulty lines")
    parser.add_argument("--tasks", type=int, default=DEFAULT_SHAPE.tasks, help="scale mode: tasks per collection")
    parser.add_argument(
        "--incomplete-rate",
        type=float,
        default=DEFAULT_SHAPE.incomplete_rate,
        help="scale mode: share of runs that stopped part-way",
    )
    parser.add_argument(
        "--many-epochs-rate",
        type=float,
        default=DEFAULT_SHAPE.many_epochs_rate,
        help="scale mode: share of runs of many epochs",
    )
    parser.add_argument("--epochs", type=int, default=DEFAULT_SHAPE.epochs, help="scale mode: epochs of those runs")
    args = parser.parse_args()
    if args.runs is None:
        out = args.out or REPO / "data" / "sample"
        clean(out)
        v3, v4 = v3_runs(args.seed), v4_runs(args.seed)
        for run in v3 + v2_runs(args.seed) + v4:
            write_run(out, run)
        write_traces(out, v3 + v4)
        faults = out / FAULTS_DIR / "mixed_faults.jsonl"
        write_lines(faults, fault_lines(v3), eol=b"\r\n")
        write_sample_metadata(out)
        return
    if args.out is None:
        parser.error("--runs needs --out (scale data never goes into data/sample)")
    shape = ScaleShape(args.tasks, args.incomplete_rate, args.many_epochs_rate, args.epochs)
    rates = (args.fault_rate, shape.many_epochs_rate, P_FAILED + shape.incomplete_rate)
    if (
        args.runs < 0
        or args.shard_runs < 1
        or shape.tasks < 1
        or shape.epochs < 2
        or not all(0 <= r < 1 for r in rates)
    ):
        parser.error(
            "--runs >= 0, --shard-runs >= 1, --tasks >= 1, --epochs >= 2, and --fault-rate, --many-epochs-rate "
            f"and --incomplete-rate + {P_FAILED} (the failed runs) between 0 and 1"
        )
    clean_scale(args.out)
    write_scale_collections(args.out)
    stats = write_scale(args.out, args.seed, 0, args.runs, args.layout, args.shard_runs, args.fault_rate, shape)
    print(
        f"wrote {stats['runs']} runs, {stats['lines']} lines in {stats['files']} files "
        f"({stats['bytes'] / 1e6:.1f} MB) under {args.out}"
    )


if __name__ == "__main__":
    main()
