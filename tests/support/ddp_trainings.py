"""Real multi-process trainings on the CPU (issue 22): torch.distributed with gloo on 127.0.0.1,
one process per rank, one of them slowed by a known amount per step.

    record = run_writer_ddp(raw_dir, record_path, world_size=4, steps=20, slow_rank=2, extra_seconds=0.05)
    record = run_lightning_ddp(raw_dir, record_path, world_size=4, steps=20, slow_rank=2, extra_seconds=0.05)

Each writes one run (collection COLLECTION, task TASK, run_id WRITER_RUN_ID or LIGHTNING_RUN_ID) as
one file per rank in `raw_dir` (`<run_id>.rank<N>.jsonl`, the writer's ``per_rank_files=True``),
and returns the test's own record of every rank's steps, never read back from the writer:
``{rank: [{"step", "started_at", "arrived_at", "local_seconds"}, ...]}``, steps counted from 1.
``started_at`` is the wall-clock time (time.time()) when the rank's local work for the step began,
``arrived_at`` when it reached the step's collective (the moment before ``loss.backward()``, whose
gradient all-reduce makes every rank wait for the slowest), and ``local_seconds`` the monotonic
seconds in between. Each process writes its part to ``<record stem>.rank<N><suffix>`` beside
`record_path`; the merged record is written to `record_path` (JSON, ranks as keys) and returned.

The slow rank sleeps `extra_seconds` more per step in its local work, before the collective, as a
slow GPU or an unlucky data shard would; the planted total is ``extra_seconds * steps``.

- The writer loop (``run_writer_ddp``): per step, section ``forward`` (the forward, the slow rank's
  sleep, the loss), then ``checkpoint(step)``: the rank's arrival; then ``backward``
  (``collective=True``: DDP's gradient all-reduce) and ``optimizer``; after the last step one
  ``epoch_end``, which comes after a collective and so reaches every rank at about the same moment.
  The writer learns rank and world size from torch.distributed alone (no rank variable is set).
  The sleep comes after the model call because DDP's second forward rebuilds its gradient buckets
  with a broadcast from rank 0 (a collective, once per run): a sleep before it would make the fast
  ranks wait inside their step-2 forward. In Lightning the sleep is inside ``training_step``, which
  DDP calls after that broadcast.
- Lightning (``run_lightning_ddp``): ``Trainer(accelerator="cpu", devices=world_size,
  strategy="ddp")`` started as a script, whose launcher starts the other ranks; two epochs of
  ``steps // 2`` steps, a ModelCheckpoint save at each epoch end. The slow rank sleeps inside its
  ``training_step``, which the callback times as ``forward``; its markers (checkpoint after the
  save's barrier, epoch_end) come where the callback writes them.

Every process runs with one thread (OMP_NUM_THREADS=1): four ranks share a couple of cores. A
training that fails or outlasts TIMEOUT_SECONDS raises with the tail of its output. Without torch
(or Lightning), the harness skips, or fails under RUNLENS_REQUIRE_FRAMEWORKS=1 (writer_trainings.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
COLLECTION = "writer-ranks"
TASK = "ddp"
WRITER_RUN_ID = "ddp-writer"
LIGHTNING_RUN_ID = "ddp-lightning"
LIGHTNING_EPOCHS = 2
BATCH_SIZE = 4
TIMEOUT_SECONDS = 240
# what a launcher sets: none may leak into a training, so that the ranks come from torch.distributed
# or from Lightning's own launcher
LAUNCHER_VARIABLES = (
    "RANK",
    "LOCAL_RANK",
    "NODE_RANK",
    "GROUP_RANK",
    "WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "TORCHELASTIC_RUN_ID",
)


# -- the harness (the test's process) ------------------------------------------------------------


def run_writer_ddp(
    raw_dir: Path, record_path: Path, *, world_size: int = 4, steps: int, slow_rank: int, extra_seconds: float
) -> dict[int, list[dict]]:
    """A DDP loop logged with the writer, one process per rank (see the module docstring)."""
    _require("torch.distributed")
    options = _options(raw_dir, record_path, world_size, steps, slow_rank, extra_seconds)
    options["port"] = _free_port()
    processes = [
        _start("writer", {**options, "rank": rank}, record_path, f"writer.rank{rank}") for rank in range(world_size)
    ]
    _wait(processes)
    return _merged_record(record_path, world_size)


def run_lightning_ddp(
    raw_dir: Path, record_path: Path, *, world_size: int = 4, steps: int, slow_rank: int, extra_seconds: float
) -> dict[int, list[dict]]:
    """A Lightning DDP fit logged with the runlens callback (see the module docstring)."""
    _require("lightning.pytorch")
    if steps % LIGHTNING_EPOCHS:
        raise ValueError(
            f"steps={steps}: Lightning trains {LIGHTNING_EPOCHS} epochs of steps // 2, give an even number"
        )
    options = _options(raw_dir, record_path, world_size, steps, slow_rank, extra_seconds)
    _wait([_start("lightning", options, record_path, "lightning")])  # its launcher starts the other ranks
    return _merged_record(record_path, world_size)


def record_part(record_path: Path, rank: int) -> Path:
    """Where rank `rank` writes its part of the record."""
    record_path = Path(record_path)
    return record_path.with_name(f"{record_path.stem}.rank{rank}{record_path.suffix}")


def _require(module: str) -> None:
    from tests.support.writer_trainings import framework_module  # imports pytest: the harness side only

    framework_module(module)


def _options(raw_dir, record_path, world_size, steps, slow_rank, extra_seconds) -> dict[str, Any]:
    if world_size < 2 or not 0 <= slow_rank < world_size or steps < 1 or extra_seconds < 0:
        raise ValueError(
            f"world_size={world_size}, slow_rank={slow_rank}, steps={steps}, extra_seconds={extra_seconds}"
        )
    Path(raw_dir).mkdir(parents=True, exist_ok=True)
    Path(record_path).parent.mkdir(parents=True, exist_ok=True)
    for rank in range(world_size):
        record_part(record_path, rank).unlink(missing_ok=True)
    return {
        "raw_dir": str(raw_dir),
        "record_path": str(record_path),
        "world_size": world_size,
        "steps": steps,
        "slow_rank": slow_rank,
        "extra_seconds": extra_seconds,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(kind: str, options: dict, record_path: Path, name: str) -> tuple[subprocess.Popen, Path]:
    environment = {key: value for key, value in os.environ.items() if key not in LAUNCHER_VARIABLES}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "writer"), environment.get("PYTHONPATH")]))
    environment["OMP_NUM_THREADS"] = "1"
    output = Path(record_path).with_name(f"{Path(record_path).stem}.{name}.log")
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), kind, json.dumps(options)],
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a hung training is stopped whole
        )
    return process, output


def _wait(processes: list[tuple[subprocess.Popen, Path]]) -> None:
    deadline = time.monotonic() + TIMEOUT_SECONDS
    failures = []
    for process, output in processes:
        try:
            code = process.wait(timeout=max(deadline - time.monotonic(), 1))
        except subprocess.TimeoutExpired:
            code = f"still running after {TIMEOUT_SECONDS} s"
        if code != 0:
            failures.append((code, output))
    if failures:
        for process, _ in processes:
            _stop(process)
        details = "\n".join(f"-- {output} ({code}):\n{_tail(output)}" for code, output in failures)
        raise RuntimeError(f"a distributed training failed:\n{details}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the group this harness started for it
        except ProcessLookupError:
            pass
        process.wait()


def _tail(output: Path, lines: int = 40) -> str:
    return "\n".join(output.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def _merged_record(record_path: Path, world_size: int) -> dict[int, list[dict]]:
    missing = [str(record_part(record_path, rank)) for rank in range(world_size)]
    missing = [part for part in missing if not Path(part).exists()]
    if missing:
        raise RuntimeError(f"the training ended without these parts of its record: {missing}")
    record = {rank: json.loads(record_part(record_path, rank).read_text()) for rank in range(world_size)}
    Path(record_path).write_text(json.dumps({str(rank): steps for rank, steps in record.items()}, indent=1))
    return record


# -- the ranks (one process each) ----------------------------------------------------------------


class StepRecord:
    """One rank's own account of its steps: when its local work began and when it arrived."""

    def __init__(self) -> None:
        self.steps: list[dict] = []
        self._started: tuple[float, float] | None = None

    def start(self) -> None:
        self._started = (time.time(), time.monotonic())

    def arrive(self, step: int) -> None:
        started_at, started = self._started
        local_seconds = time.monotonic() - started
        self.steps.append(
            {"step": step, "started_at": started_at, "arrived_at": time.time(), "local_seconds": local_seconds}
        )

    def save(self, record_path: str, rank: int) -> None:
        part = record_part(Path(record_path), rank)
        written = part.with_name(part.name + ".partial")
        written.write_text(json.dumps(self.steps))
        written.replace(part)  # whole or absent


def writer_rank(options: dict) -> None:
    import runlens_writer
    import torch
    import torch.distributed as distributed

    torch.set_num_threads(1)
    rank, world_size, steps = options["rank"], options["world_size"], options["steps"]
    distributed.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{options['port']}", rank=rank, world_size=world_size
    )
    torch.manual_seed(0)  # the same initial weights on every rank (DDP broadcasts rank 0's anyway)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(rank)  # each rank its own shard
    features = torch.randn(steps, BATCH_SIZE, 4, generator=generator)
    targets = torch.randn(steps, BATCH_SIZE, 1, generator=generator)
    slow = rank == options["slow_rank"]
    record = StepRecord()
    config = {"model": "linear", "world_size": world_size, "slow_rank": options["slow_rank"]}
    path = Path(options["raw_dir"]) / f"{WRITER_RUN_ID}.jsonl"
    with runlens_writer.start_run(path, collection=COLLECTION, task=TASK, config=config, per_rank_files=True) as log:
        for step in range(1, steps + 1):
            record.start()
            with log.section("forward"):
                predictions = model(features[step - 1])
                if slow:  # after the model call: DDP's forward of step 2 holds a collective (below)
                    time.sleep(options["extra_seconds"])
                loss = torch.nn.functional.mse_loss(predictions, targets[step - 1])
            record.arrive(step)
            log.checkpoint(step)  # arrival: before the step's collective
            with log.section("backward", collective=True):
                loss.backward()  # DDP's gradient all-reduce: every rank waits for the slowest
            with log.section("optimizer"):
                optimizer.step()
                optimizer.zero_grad()
        log.epoch_end(epoch=0, step=steps)  # after a collective: the ranks arrive together
    record.save(options["record_path"], rank)
    distributed.barrier()  # every rank's file and record part are written before any process exits
    distributed.destroy_process_group()


def lightning_rank(options: dict) -> None:
    import lightning.pytorch as pl
    import torch
    import torch.distributed as distributed
    from runlens_callbacks.lightning import RunlensLightningCallback
    from torch.utils.data import DataLoader, TensorDataset

    torch.set_num_threads(1)
    world_size, steps = options["world_size"], options["steps"]
    record = StepRecord()

    class TinyModule(pl.LightningModule):
        def __init__(self, slow_rank: int, extra_seconds: float) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            if self.global_rank == self.hparams.slow_rank:
                time.sleep(self.hparams.extra_seconds)
            features, targets = batch
            return torch.nn.functional.mse_loss(self.layer(features), targets)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    class Recorder(pl.Callback):
        """Before the runlens callback in the list: its moments enclose the callback's sections."""

        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            record.start()

        def on_before_backward(self, trainer, pl_module, loss):
            record.arrive(trainer.global_step + 1)

    samples = world_size * BATCH_SIZE * (steps // LIGHTNING_EPOCHS)  # steps // 2 steps per epoch on each rank
    generator = torch.Generator().manual_seed(0)
    dataset = TensorDataset(torch.randn(samples, 4, generator=generator), torch.randn(samples, 1, generator=generator))
    work = Path(options["record_path"]).with_name(f"{Path(options['record_path']).stem}.lightning")
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=world_size,
        strategy="ddp",
        max_epochs=LIGHTNING_EPOCHS,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=work,
        callbacks=[
            Recorder(),
            RunlensLightningCallback(
                Path(options["raw_dir"]) / f"{LIGHTNING_RUN_ID}.jsonl",
                collection=COLLECTION,
                task=TASK,
                per_rank_files=True,
            ),
            pl.callbacks.ModelCheckpoint(dirpath=work / "checkpoints", save_top_k=-1),
        ],
    )
    pl.seed_everything(0, verbose=False)
    module = TinyModule(slow_rank=options["slow_rank"], extra_seconds=options["extra_seconds"])
    trainer.fit(module, DataLoader(dataset, batch_size=BATCH_SIZE))
    record.save(options["record_path"], trainer.global_rank)
    distributed.barrier()  # every rank's file and record part are written before rank 0 returns


if __name__ == "__main__":
    kind, arguments = sys.argv[1], json.loads(sys.argv[2])
    {"writer": writer_rank, "lightning": lightning_rank}[kind](arguments)
