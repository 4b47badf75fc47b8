"""Tiny CPU trainings profiled with the real `torch.profiler` (tensorboard_trace_handler), for the
step breakdown tests (tests/pipeline/test_traces.py): real Kineto traces, CPU only.

Each batch takes LOAD_SECONDS to make (ITEM_SECONDS slept per item, in the dataset: the data
path) and each training step COMPUTE_SECONDS (a sleep after the backward pass: the step's own
work). With `num_workers=0` the host makes every batch itself inside the step, so the DataLoader's
`__next__` takes at least LOAD_SECONDS of every step's at least LOAD_SECONDS + COMPUTE_SECONDS;
with two workers, each of which makes a batch in LOAD_SECONDS while a step takes longer than half
that, the batches wait ready in the prefetch queue and `__next__` only takes them.

Each training writes a runlens log beside its traces (run_start before the profiler starts,
run_end after it stops), so its traces belong to that run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.support.writer_trainings import framework_module

BATCH_SIZE = 4
ITEM_SECONDS = 0.01
LOAD_SECONDS = BATCH_SIZE * ITEM_SECONDS
COMPUTE_SECONDS = 0.06
WAIT, WARMUP, ACTIVE = 1, 1, 3  # the profiler's schedule: ACTIVE steps recorded
COLLECTION = "dataloader-workers"


def train(folder: Path, num_workers: int) -> Path:
    """Train with a profiled DataLoader of num_workers into folder (its traces in
    folder/profile/, its log folder/run.jsonl); returns folder."""
    torch = framework_module("torch")

    class SlowItems(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 64

        def __getitem__(self, index: int):
            time.sleep(ITEM_SECONDS)
            return torch.full((8,), float(index)), torch.ones(1)

    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(SlowItems(), batch_size=BATCH_SIZE, num_workers=num_workers)
    folder.mkdir(parents=True, exist_ok=True)
    run_id = f"workers-{num_workers}"
    lines = [{"run_id": run_id, "event": "run_start", "ts": time.time(), "collection": COLLECTION, "task": run_id}]
    schedule = torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=schedule,
        on_trace_ready=torch.profiler.tensorboard_trace_handler(str(folder / "profile")),
    ) as profiler:
        for step, (inputs, targets) in enumerate(loader):
            loss = ((model(inputs) - targets) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            time.sleep(COMPUTE_SECONDS)
            profiler.step()
            if step + 1 == WAIT + WARMUP + ACTIVE + 1:
                break
    lines.append({"run_id": run_id, "event": "run_end", "ts": time.time()})
    (folder / "run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


def train_with_tensorboard(logdir: Path, num_workers: int = 0) -> Path:
    """The same profiled training logging its loss to TensorBoard in logdir (torch's SummaryWriter,
    every step, before and after the profiled steps), its traces in the log dir's
    `plugins/profile/`, where TensorBoard's profiler plugin looks: no runlens log. Returns logdir."""
    torch = framework_module("torch")
    from torch.utils.tensorboard import SummaryWriter

    class SlowItems(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 64

        def __getitem__(self, index: int):
            time.sleep(ITEM_SECONDS)
            return torch.full((8,), float(index)), torch.ones(1)

    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(SlowItems(), batch_size=BATCH_SIZE, num_workers=num_workers)
    writer = SummaryWriter(str(logdir))
    schedule = torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=schedule,
        on_trace_ready=torch.profiler.tensorboard_trace_handler(str(logdir / "plugins" / "profile")),
    ) as profiler:
        for step, (inputs, targets) in enumerate(loader):
            loss = ((model(inputs) - targets) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            time.sleep(COMPUTE_SECONDS)
            writer.add_scalar("train/loss", loss.item(), step)
            profiler.step()
            if step + 1 == WAIT + WARMUP + ACTIVE + 3:
                break
    writer.close()
    return logdir
