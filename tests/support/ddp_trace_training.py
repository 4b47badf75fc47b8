"""A real two-rank training profiled with `torch.profiler` (gloo on 127.0.0.1, CPU), for the
collectives of tests/pipeline/test_traces.py.

    run(folder, slow_rank=1, extra_seconds=0.05)

starts one process per rank (this file as a script); each trains a DDP model for STEPS steps
under the profiler (tensorboard_trace_handler into `folder`: one trace per rank, whose
distributedInfo names its rank). Every step, each rank runs its forward pass, the slow rank then
sleeps `extra_seconds`, and the backward pass's gradient all-reduce (DDP's collective) makes the
other rank wait for it: the slow rank is the last to launch its step's first collective, later
than the other by about `extra_seconds`. Every process runs with one thread.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

WORLD_SIZE = 2
STEPS = 6  # the profiler records steps 2..5 (wait 1, warmup 1, active 4)
TIMEOUT_SECONDS = 180


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(folder: Path, slow_rank: int = 1, extra_seconds: float = 0.05) -> Path:
    """Train on WORLD_SIZE ranks; their traces in folder. Raises with the output when one fails."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    processes = []
    for rank in range(WORLD_SIZE):
        arguments = [str(rank), str(port), str(folder), str(slow_rank), str(extra_seconds)]
        log = open(folder / f"_rank{rank}.out", "w")  # noqa: SIM115 (closed below); `_`: no log, no trace
        processes.append(
            (
                subprocess.Popen(
                    [sys.executable, __file__, *arguments], stdout=log, stderr=subprocess.STDOUT, env=environment
                ),
                log,
            )
        )
    deadline = time.monotonic() + TIMEOUT_SECONDS
    failures = []
    for process, log in processes:
        try:
            code = process.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            code = "timeout"
        log.close()
        if code != 0:
            failures.append(f"{log.name} ({code}):\n" + Path(log.name).read_text()[-3000:])
    if failures:
        raise RuntimeError("the profiled DDP training failed:\n" + "\n".join(failures))
    return folder


def train(rank: int, port: int, folder: str, slow_rank: int, extra_seconds: float) -> None:
    import torch
    from torch import distributed
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD_SIZE)
    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Linear(64, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    inputs, targets = torch.randn(16, 32), torch.randn(16, 1)
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=STEPS - 2, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=schedule,
        on_trace_ready=torch.profiler.tensorboard_trace_handler(folder, worker_name=f"rank{rank}"),
    ) as profiler:
        for _ in range(STEPS):
            loss = ((model(inputs) - targets) ** 2).mean()
            if rank == slow_rank:
                time.sleep(extra_seconds)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            profiler.step()
    distributed.destroy_process_group()


if __name__ == "__main__":
    train(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
