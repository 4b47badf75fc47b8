"""Real trainings on the CPU that a test kills with SIGKILL part-way through an epoch and resumes
from their last checkpoint (issue 31): one in a plain loop with runlens' writer, one in PyTorch
Lightning with the runlens callback.

`python -m tests.support.killed_trainings plain|lightning FOLDER` runs one session: it starts fresh, or
resumes when FOLDER holds a checkpoint, and trains to the end of its epochs unless it is killed.
Beside the runlens log (FOLDER/logs/), each session keeps its own account in FOLDER/record.jsonl,
one line per moment, written the moment it happens and never read by runlens: where the session
began (just before its run_start), where its first training step began, each step done, each
checkpoint on disk. tests/writer/test_killed_trainings.py kills the first session, notes the moment, and
compares the goodput marts with these records.

Each step sleeps STEP_SECONDS inside `train_step`, so the training after a checkpoint is long
against the moments between the runlens log's last line and the kill (a periodic profile at every
section's close: profile_every=0). The Lightning module sleeps WARM_UP_SECONDS in on_train_start,
a warm-up inside each session's start-up.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

EPOCHS = 3
STEPS_PER_EPOCH = 80
STEP_SECONDS = 0.025
WARM_UP_SECONDS = 0.5
COLLECTION = "goodput-killed"


def record(folder: Path, what: str, **fields) -> None:
    """One line of the session's own account, in the OS at once (a SIGKILL loses nothing written)."""
    line = json.dumps({"what": what, "at": time.time(), "pid": os.getpid(), **fields}) + "\n"
    descriptor = os.open(folder / "record.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)


def plain(folder: Path) -> None:
    import runlens_writer

    log = runlens_writer.RunLog(folder / "logs" / "plain.jsonl", profile_every=0)
    record(folder, "run_start")
    log.run_start(COLLECTION, "plain", {"lr": 0.05})
    import torch  # set-up: the framework, the model, the data, a restored checkpoint

    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    features, targets = torch.randn(STEPS_PER_EPOCH * 4, 8), torch.randn(STEPS_PER_EPOCH * 4, 1)
    checkpoint_path = folder / "plain.pt"
    step = 0
    if checkpoint_path.exists():
        state = torch.load(checkpoint_path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
    record(folder, "train_start", step=step)
    log.train_start(step=step)
    for epoch in range(step // STEPS_PER_EPOCH, EPOCHS):
        for batch in range(STEPS_PER_EPOCH):
            with log.section("data_loading"):
                rows = slice(batch * 4, batch * 4 + 4)
                x, y = features[rows], targets[rows]
            with log.section("train_step"):
                loss = torch.nn.functional.mse_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                time.sleep(STEP_SECONDS)
            step += 1
            record(folder, "step", step=step)
        with log.section("checkpoint_save"):
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
            torch.save(state, folder / "plain.pt.tmp")
            os.replace(folder / "plain.pt.tmp", checkpoint_path)
        record(folder, "checkpoint", step=step)
        log.checkpoint(step)
        log.epoch_end(epoch=epoch, step=step)
    log.run_end()


def lightning(folder: Path) -> None:
    import lightning.pytorch as pl
    import torch
    from runlens_callbacks.lightning import RunlensLightningCallback
    from torch.utils.data import DataLoader, TensorDataset

    class Module(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(8, 1)

        def on_train_start(self) -> None:
            time.sleep(WARM_UP_SECONDS)  # a warm-up: part of each session's start-up

        def training_step(self, batch, batch_idx):
            time.sleep(STEP_SECONDS)
            features, targets = batch
            return torch.nn.functional.mse_loss(self.layer(features), targets)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05)

    class Recorder(pl.Callback):
        """The session's own account, from the hooks where the runlens callback writes."""

        def on_fit_start(self, trainer, pl_module):
            record(folder, "run_start")

        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            if not self.__dict__.get("training"):
                self.training = True
                record(folder, "train_start", step=trainer.global_step)

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            record(folder, "step", step=trainer.global_step)

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(STEPS_PER_EPOCH * 4, 8), torch.randn(STEPS_PER_EPOCH * 4, 1))
    checkpoints = folder / "checkpoints"
    saved = sorted(checkpoints.glob("*.ckpt"), key=lambda path: path.stat().st_mtime_ns)
    trainer = pl.Trainer(
        max_epochs=EPOCHS,
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        default_root_dir=folder,
        callbacks=[
            Recorder(),
            RunlensLightningCallback(
                folder / "logs" / "lightning.jsonl", collection=COLLECTION, task="lightning", profile_every=0
            ),
            pl.callbacks.ModelCheckpoint(dirpath=checkpoints, save_top_k=1),  # the latest epoch's only
        ],
    )
    trainer.fit(Module(), DataLoader(data, batch_size=4), ckpt_path=str(saved[-1]) if saved else None)


if __name__ == "__main__":
    {"plain": plain, "lightning": lightning}[sys.argv[1]](Path(sys.argv[2]))
