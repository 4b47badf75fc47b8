"""Run genuinely real tiny trainings on the CPU and keep their logs as the importer test fixtures.

Each training learns (a + b) mod 23 from random init with a small MLP (no downloads):

- ``lightning``: PyTorch Lightning with TensorBoardLogger, MLFlowLogger (MLflow file store) and
  ModelCheckpoint every 200 steps; validation every 200 steps; 4 epochs of 150 steps.
- ``lightning_failed``: the same, but the training raises at step 300 (MLflow status FAILED), and
  MLFlowLogger(log_model="all") copies each checkpoint into the run's artifacts.
- ``hf``: the Hugging Face Trainer with save_steps = eval_steps = 200, report_to tensorboard and
  mlflow; MLflow writes to its MLflow 3 default store, the sqlite database ``mlflow.db`` (kept
  gzipped as ``mlflow.db.gz``: the tests unpack it).

A callback of our own records, in the training process, when the run started, when each
checkpoint was written and each epoch ended, and when the run ended: ``record.json``. Weights are
not kept: every checkpoint file or folder is deleted after the run and listed in
``manifest.json`` with its modification time, so a test can re-create empty files with those
times.

The training dependencies are not the project's: install them in a venv of their own,

    python3.11 -m venv /tmp/rlfx && /tmp/rlfx/bin/pip install -r requirements-fixtures.txt
    /tmp/rlfx/bin/python scripts/make_importer_fixtures.py [--out tests/fixtures/importers]

Each training runs in its own process, one after the other, on one CPU thread (seconds each).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "tests" / "fixtures" / "importers"
TRAININGS = ("lightning", "lightning_failed", "hf")

MODULUS = 23
TRAIN_PAIRS = 450  # with batch size 3: 150 steps per epoch
BATCH_SIZE = 3
EPOCHS = 4  # 600 steps: checkpoints at 200, 400, 600; epoch ends at 150, 300, 450, 600
EVERY = 200
FAIL_AT_STEP = 300
SEED = 23
STEP_SLEEP = 0.02  # seconds per training step, see AddMod.forward
WEIGHT_SUFFIXES = (".ckpt", ".pt", ".pth", ".bin", ".safetensors")


# ---------------------------------------------------------------------------------------------
# the data and the model (shared by every training here and in make_wandb_fixtures.py)


def pairs():
    import torch

    generator = torch.Generator().manual_seed(SEED)
    a, b = torch.meshgrid(torch.arange(MODULUS), torch.arange(MODULUS), indexing="ij")
    a, b = a.flatten(), b.flatten()
    order = torch.randperm(a.numel(), generator=generator)
    a, b = a[order], b[order]
    labels = (a + b) % MODULUS
    return (a[:TRAIN_PAIRS], b[:TRAIN_PAIRS], labels[:TRAIN_PAIRS]), (
        a[TRAIN_PAIRS:],
        b[TRAIN_PAIRS:],
        labels[TRAIN_PAIRS:],
    )


def mlp():
    import torch
    from torch import nn

    class AddMod(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(MODULUS, 32)
            self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, MODULUS))

        def forward(self, a, b, labels=None):
            if self.training:
                time.sleep(STEP_SLEEP)  # stands in for a bigger model: markers land seconds apart
            logits = self.body(torch.cat([self.embed(a), self.embed(b)], dim=-1))
            if labels is None:
                return {"logits": logits}
            return {"loss": nn.functional.cross_entropy(logits, labels), "logits": logits}

    return AddMod()


class Recorder:
    """The independent record: wall-clock times taken in the training process itself.

    A run's start and end are recorded as a bracket: ``ts`` is taken before the framework's
    loggers handle the moment (creating their writer or MLflow run, closing them) and ``ts_after``
    after, so a logger's own time for it must lie between the two.
    """

    def __init__(self, framework: str) -> None:
        self.data = {"framework": framework, "checkpoints": [], "epoch_ends": []}

    def mark(self, key: str, **fields) -> None:
        self.data[key] = {"ts": time.time(), **fields}

    def mark_after(self, key: str) -> None:
        self.data[key]["ts_after"] = time.time()

    def checkpoint(self, step: int, epoch: int, started: float, name: str) -> None:
        self.data["checkpoints"].append(
            {"step": step, "epoch": epoch, "ts": time.time(), "save_started": started, "name": name}
        )

    def epoch_end(self, epoch: int, step: int) -> None:
        self.data["epoch_ends"].append({"epoch": epoch, "step": step, "ts": time.time()})

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# PyTorch Lightning


def lightning_parts(recorder: Recorder) -> tuple[type, type]:
    """The LightningModule every Lightning training fits, and a ModelCheckpoint that records each save."""
    import lightning.pytorch as pl
    import torch
    from lightning.pytorch.callbacks import ModelCheckpoint

    class Module(pl.LightningModule):
        def __init__(self, lr: float = 0.003, hidden: int = 128) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.net = mlp()

        def training_step(self, batch, batch_idx):
            a, b, y = batch
            loss = self.net(a, b, y)["loss"]
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, batch, batch_idx):
            a, b, y = batch
            out = self.net(a, b, y)
            self.log("val_loss", out["loss"])
            self.log("val_acc", (out["logits"].argmax(-1) == y).float().mean())

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)

    class RecordingCheckpoint(ModelCheckpoint):
        """ModelCheckpoint that notes the wall time right after each file is written."""

        def _save_checkpoint(self, trainer, filepath):
            started = time.time()
            super()._save_checkpoint(trainer, filepath)
            recorder.checkpoint(trainer.global_step, trainer.current_epoch, started, os.path.basename(filepath))

    return Module, RecordingCheckpoint


def fit_lightning(workdir: Path, module, loggers, callbacks: list) -> None:
    """Fit the module for EPOCHS epochs on the CPU: validation and a checkpoint every EVERY steps."""
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    (train_a, train_b, train_y), (val_a, val_b, val_y) = pairs()
    trainer = pl.Trainer(
        max_epochs=EPOCHS,
        accelerator="cpu",
        devices=1,
        logger=loggers,
        callbacks=callbacks,
        val_check_interval=EVERY,
        check_val_every_n_epoch=None,
        log_every_n_steps=50,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=str(workdir),
    )
    train = DataLoader(TensorDataset(train_a, train_b, train_y), batch_size=BATCH_SIZE, shuffle=True)
    val = DataLoader(TensorDataset(val_a, val_b, val_y), batch_size=64)
    trainer.fit(module, train, val)


def train_lightning(workdir: Path, fail: bool) -> None:
    import lightning.pytorch as pl
    import torch
    from lightning.pytorch.callbacks import Callback
    from lightning.pytorch.loggers import MLFlowLogger, TensorBoardLogger

    torch.set_num_threads(1)
    pl.seed_everything(SEED, workers=True)
    recorder = Recorder("lightning")
    Module, RecordingCheckpoint = lightning_parts(recorder)

    class LoggedModule(Module):
        def prepare_data(self):
            # Lightning calls this just before it creates the loggers' experiments (TensorBoard
            # writer, MLflow run) in its setup hook, so it opens the run_start bracket.
            recorder.mark("run_start")

    class Record(Callback):
        def on_fit_start(self, trainer, pl_module):
            recorder.mark_after("run_start")

        def on_train_epoch_end(self, trainer, pl_module):
            recorder.epoch_end(trainer.current_epoch + 1, trainer.global_step)

        def on_fit_end(self, trainer, pl_module):
            recorder.mark("run_end", status="completed")

        def on_exception(self, trainer, pl_module, exception):
            recorder.mark("run_end", status="failed", error=str(exception))

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            if fail and trainer.global_step >= FAIL_AT_STEP:
                raise RuntimeError(f"deliberate failure at step {trainer.global_step}")

    loggers = [
        TensorBoardLogger(save_dir=str(workdir)),  # lightning_logs/version_0/
        MLFlowLogger(
            experiment_name="runlens-fixture-lightning",
            run_name="addmod-failed" if fail else "addmod",
            tracking_uri=f"file:{workdir / 'mlruns'}",
            tags={"task": "addmod23"},
            # the failing run also logs each checkpoint as an artifact as soon as it is saved
            log_model="all" if fail else False,
        ),
    ]
    recorder.mark("fit_called")
    try:
        callbacks = [Record(), RecordingCheckpoint(every_n_train_steps=EVERY, save_top_k=-1)]
        fit_lightning(workdir, LoggedModule(), loggers, callbacks)
    except RuntimeError as error:
        if not fail:
            raise
        print(f"training failed as intended: {error}", file=sys.stderr)
    recorder.mark_after("run_end")  # the loggers are finalized (MLflow end_time) after on_fit_end
    recorder.write(workdir / "record.json")


# ---------------------------------------------------------------------------------------------
# Hugging Face Trainer


def hf_trainer(output_dir: Path, report_to: list[str], first, after):
    """The Trainer every HF training runs: EPOCHS epochs, evaluation and a save every EVERY steps;
    callback `first` runs before the trackers' callbacks, `after` after them."""
    from torch.utils.data import Dataset
    from transformers import Trainer, TrainingArguments

    (train_a, train_b, train_y), (val_a, val_b, val_y) = pairs()

    class Pairs(Dataset):
        def __init__(self, a, b, y) -> None:
            self.a, self.b, self.y = a, b, y

        def __len__(self) -> int:
            return len(self.y)

        def __getitem__(self, index):
            return {"a": self.a[index], "b": self.b[index], "labels": self.y[index]}

    args = TrainingArguments(
        output_dir=str(output_dir),
        num_train_epochs=EPOCHS,
        per_device_train_batch_size=BATCH_SIZE,
        per_device_eval_batch_size=64,
        learning_rate=0.003,
        eval_strategy="steps",
        eval_steps=EVERY,
        save_strategy="steps",
        save_steps=EVERY,
        logging_steps=50,
        report_to=report_to,
        run_name="addmod-hf",
        use_cpu=True,
        seed=SEED,
        disable_tqdm=True,
        remove_unused_columns=False,
        dataloader_num_workers=0,
    )
    trainer = Trainer(
        model=mlp(),
        args=args,
        train_dataset=Pairs(train_a, train_b, train_y),
        eval_dataset=Pairs(val_a, val_b, val_y),
        callbacks=[after],
    )
    trainer.callback_handler.callbacks.insert(0, first)
    return trainer


def train_hf(workdir: Path) -> None:
    import torch
    from transformers import TrainerCallback

    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    recorder = Recorder("hf")

    class RecordFirst(TrainerCallback):
        """Runs before the TensorBoard and MLflow callbacks."""

        def on_train_begin(self, args, state, control, **kwargs):
            recorder.mark("run_start")

        def on_train_end(self, args, state, control, **kwargs):
            recorder.mark("run_end", status="completed")

    class Record(TrainerCallback):
        """Runs after them."""

        def on_train_begin(self, args, state, control, **kwargs):
            recorder.mark_after("run_start")

        def on_save(self, args, state, control, **kwargs):
            # the Trainer calls on_save once the checkpoint folder is written: one time for both ends
            recorder.checkpoint(
                state.global_step, int(state.epoch or 0), time.time(), f"checkpoint-{state.global_step}"
            )

        def on_epoch_end(self, args, state, control, **kwargs):
            recorder.epoch_end(round(state.epoch), state.global_step)

        def on_train_end(self, args, state, control, **kwargs):
            recorder.mark_after("run_end")

    # An existing MLflow 3 default store (sqlite:///mlflow.db in the working folder) with the
    # experiment in it, as a user has after the first run: creating the database takes seconds.
    import mlflow

    mlflow.set_experiment("runlens-fixture-hf")
    trainer = hf_trainer(workdir / "out", ["tensorboard", "mlflow"], RecordFirst(), Record())
    recorder.mark("fit_called")
    trainer.train()
    recorder.mark("fit_returned")
    recorder.write(workdir / "record.json")


# ---------------------------------------------------------------------------------------------
# turning a finished training folder into a fixture


def _is_weight(path: Path) -> bool:
    return path.suffix in WEIGHT_SUFFIXES


def _checkpoint_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("checkpoint-*") if p.is_dir())


def strip_weights(workdir: Path) -> list[dict]:
    """Delete checkpoint files and folders; return their names and modification times.

    Every time is read before anything is deleted (deleting a file changes its folder's time).
    """
    doomed: list[Path] = []
    for folder in _checkpoint_dirs(workdir):
        doomed.extend(sorted(folder.rglob("*")))
        doomed.append(folder)
    doomed.extend(p for p in sorted(workdir.rglob("*")) if p.is_file() and _is_weight(p) and p not in doomed)
    for folder in sorted(workdir.rglob("checkpoints")):
        if folder.is_dir() and all(p in doomed for p in folder.rglob("*")):
            doomed.append(folder)
    entries = [_entry(workdir, p, "dir" if p.is_dir() else "file") for p in doomed]
    for path in doomed:  # files first, then their folders
        if path.is_file():
            path.unlink()
    for path in sorted((p for p in doomed if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        path.rmdir()
    return sorted(entries, key=lambda e: e["path"])


def _entry(root: Path, path: Path, kind: str) -> dict:
    stat = path.stat()
    return {"path": path.relative_to(root).as_posix(), "kind": kind, "mtime_ns": stat.st_mtime_ns}


def make_fixture(name: str, out: Path, python: str) -> float:
    """Run one training in its own process and keep the result under out/name; returns seconds."""
    with tempfile.TemporaryDirectory(prefix=f"runlens-{name}-") as scratch:
        workdir = Path(scratch) / name
        workdir.mkdir()
        env = {
            **os.environ,
            "MLFLOW_ALLOW_FILE_STORE": "true",
            "MLFLOW_EXPERIMENT_NAME": "runlens-fixture-hf",
            "OMP_NUM_THREADS": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
        }
        env.pop("MLFLOW_TRACKING_URI", None)  # the HF run must use MLflow's own default (sqlite mlflow.db)
        started = time.monotonic()
        subprocess.run([python, __file__, "--train", name, "--workdir", str(workdir)], cwd=workdir, env=env, check=True)
        seconds = time.monotonic() - started
        manifest = {"removed": strip_weights(workdir)}
        database = workdir / "mlflow.db"
        if database.exists():  # about 1 MB of mostly empty MLflow tables: 30 KB compressed
            with database.open("rb") as raw, (workdir / "mlflow.db.gz").open("wb") as stream:
                with gzip.GzipFile(fileobj=stream, mode="wb", mtime=0) as packed:
                    shutil.copyfileobj(raw, packed)
            database.unlink()
        (workdir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        store(workdir, out / name)
    return seconds


def store(workdir: Path, target: Path) -> None:
    """Copy a finished training folder to target (replacing it), as a clone will have it."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(workdir, target, copy_function=shutil.copy2)
    for folder in sorted(target.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # git keeps no empty folders: the fixture is what a clone has


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="fixture folder (default: %(default)s)")
    parser.add_argument("--only", choices=TRAININGS, action="append", help="run only these trainings")
    parser.add_argument("--train", choices=TRAININGS, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.train:
        if args.train == "hf":
            train_hf(args.workdir)
        else:
            train_lightning(args.workdir, fail=args.train == "lightning_failed")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or TRAININGS:
        seconds = make_fixture(name, args.out, sys.executable)
        print(f"{name}: trained and stored in {seconds:.1f} s", file=sys.stderr)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"fixtures in {args.out}: {total / 1024:.0f} KiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
