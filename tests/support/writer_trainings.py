"""Tiny real trainings recorded by runlens' writer and, independently, by the test itself.

Each training runs on the CPU in well under two seconds: a linear model, in-memory data, two
epochs of four steps, an evaluation and a checkpoint per epoch. Sleeps inside the steps, the
batch loading, the evaluation and the saving make each section long against timing noise.

Beside the runlens callback (or the writer, for the plain loop), the test keeps its own `Record`:
wall-clock times of the markers and monotonic spans of the sections, taken by its own callback
registered separately, or by wrappers around the functions that do the work (the batch iterator,
the checkpoint saving), never read back from the writer. tests/writer/test_callbacks.py compares
the two; tests/writer/test_end_to_end.py builds the logs with dbt.

The frameworks are the optional frameworks extra (requirements-frameworks.txt, installed by
`make test`). Without one, its training skips, unless RUNLENS_REQUIRE_FRAMEWORKS=1 (set by
.ci/run), which makes a missing framework a failure.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

COLLECTION = "writer-callbacks"
EPOCHS = 2
BATCH_SIZE = 4
SAMPLES = 16  # four steps per epoch
STEPS_PER_EPOCH = SAMPLES // BATCH_SIZE
CHECKPOINT_STEPS = [STEPS_PER_EPOCH * (epoch + 1) for epoch in range(EPOCHS)]
SLEEP_SECONDS = {"train_step": 0.03, "data_loading": 0.02, "eval": 0.02, "checkpoint_save": 0.1}
FRAMEWORKS = ("lightning", "transformers", "keras", "plain_loop")
REQUIRED = os.environ.get("RUNLENS_REQUIRE_FRAMEWORKS") == "1"


@dataclass
class Record:
    """The test's own account of a training: marker wall times and section spans."""

    marks: list[tuple[str, dict, float]] = field(default_factory=list)
    spans: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    slept: Counter = field(default_factory=Counter)
    _open: dict[str, float] = field(default_factory=dict)

    def mark(self, event: str, **fields) -> None:
        self.marks.append((event, fields, time.time()))

    def mark_training_start(self, step: int) -> None:
        """train_start, at the first training step's start of the session (once)."""
        if not any(event == "train_start" for event, _, _ in self.marks):
            self.mark("train_start", step=step)

    def begin(self, section: str) -> None:
        self._open[section] = time.monotonic()

    def end(self, section: str) -> None:
        self.spans.setdefault(section, []).append((self._open.pop(section), time.monotonic()))

    @contextmanager
    def span(self, section: str):
        self.begin(section)
        try:
            yield
        finally:
            self.end(section)

    def sleep(self, section: str) -> None:
        """Sleep the section's time, counting it as a lower bound for that section."""
        time.sleep(SLEEP_SECONDS[section])
        self.slept[section] += SLEEP_SECONDS[section]

    def section_seconds(self) -> dict[str, float]:
        return {name: sum(end - start for start, end in spans) for name, spans in self.spans.items()}


@dataclass
class Training:
    """One recorded training: the runlens log it wrote and the test's record of it."""

    framework: str
    log_path: Path
    record: Record

    def lines(self) -> list[str]:
        return self.log_path.read_text(encoding="utf-8").splitlines()

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.lines()]


def framework_module(name: str):
    """Import a framework, or skip (fail under RUNLENS_REQUIRE_FRAMEWORKS=1) when it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        message = f"{name} is not installed (frameworks extra: requirements-frameworks.txt): {error}"
        if REQUIRED:
            pytest.fail(f"required by RUNLENS_REQUIRE_FRAMEWORKS=1: {message}")
        pytest.skip(message)


class TimedBatches:
    """The test's own timing of every batch fetched from `loader` (section data_loading)."""

    def __init__(self, loader, record: Record) -> None:
        self.loader, self.record = loader, record

    def __len__(self) -> int:
        return len(self.loader)

    def __iter__(self):
        batches = iter(self.loader)
        while True:
            self.record.begin("data_loading")
            try:
                batch = next(batches)
            except StopIteration:
                self.record.end("data_loading")
                return
            self.record.end("data_loading")
            yield batch


def tensors(torch, samples: int = SAMPLES):
    generator = torch.Generator().manual_seed(0)
    return torch.randn(samples, 4, generator=generator), torch.randn(samples, 1, generator=generator)


def slow_collate(record: Record, section: str = "data_loading"):
    import torch.utils.data

    def collate(items):
        record.sleep(section)
        return torch.utils.data.default_collate(items)

    return collate


# -- PyTorch Lightning ---------------------------------------------------------------------------


def train_lightning(folder: Path) -> Training:
    torch = framework_module("torch")
    pl = framework_module("lightning.pytorch")
    from lightning.pytorch.plugins.io import TorchCheckpointIO
    from runlens_callbacks.lightning import RunlensLightningCallback
    from torch.utils.data import DataLoader, TensorDataset

    record = Record()

    class TinyModule(pl.LightningModule):
        def __init__(self, lr: float = 0.1, optimizer: dict | None = None) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            record.sleep("train_step")
            features, targets = batch
            return torch.nn.functional.mse_loss(self.layer(features), targets)

        def validation_step(self, batch, batch_idx):
            record.sleep("eval")
            features, targets = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.layer(features), targets))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

    class RecordedCheckpointIO(TorchCheckpointIO):
        """Writes checkpoint files slowly, timing each save and marking it when the file is written."""

        def save_checkpoint(self, checkpoint, path, storage_options=None):
            with record.span("checkpoint_save"):
                record.sleep("checkpoint_save")
                super().save_checkpoint(checkpoint, path, storage_options)
            record.mark("checkpoint", step=checkpoint["global_step"])

    class Recorder(pl.Callback):
        def on_fit_start(self, trainer, pl_module):
            record.mark("run_start")

        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            record.mark_training_start(trainer.global_step)
            record.begin("train_step")

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            record.end("train_step")

        def on_validation_start(self, trainer, pl_module):
            record.begin("eval")

        def on_validation_end(self, trainer, pl_module):
            record.end("eval")

        def on_train_epoch_end(self, trainer, pl_module):
            record.mark("epoch_end", epoch=trainer.current_epoch, step=trainer.global_step)

        def on_fit_end(self, trainer, pl_module):
            record.mark("run_end", status="completed")

    features, targets = tensors(torch)
    dataset = TensorDataset(features, targets)
    train_batches = TimedBatches(DataLoader(dataset, batch_size=BATCH_SIZE, collate_fn=slow_collate(record)), record)
    val_batches = DataLoader(dataset, batch_size=SAMPLES // 2)
    log_path = folder / "lightning.jsonl"
    trainer = pl.Trainer(
        max_epochs=EPOCHS,
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        default_root_dir=folder,
        plugins=[RecordedCheckpointIO()],
        callbacks=[
            RunlensLightningCallback(log_path, collection=COLLECTION, task="lightning"),
            Recorder(),
            pl.callbacks.ModelCheckpoint(dirpath=folder / "lightning_checkpoints", save_top_k=-1),
        ],
    )
    trainer.fit(TinyModule(lr=0.1, optimizer={"name": "sgd", "momentum": 0.0}), train_batches, val_batches)
    return Training("lightning", log_path, record)


# -- Hugging Face Trainer ------------------------------------------------------------------------


def train_transformers(folder: Path) -> Training:
    torch = framework_module("torch")
    transformers = framework_module("transformers")
    framework_module("accelerate")
    from runlens_callbacks.transformers import RunlensTrainerCallback

    record = Record()

    class TinyRegressor(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def forward(self, features, labels=None):
            record.sleep("eval" if not self.training else "train_step")
            predictions = self.layer(features)
            return {"loss": torch.nn.functional.mse_loss(predictions, labels), "logits": predictions}

    class Samples(torch.utils.data.Dataset):
        def __init__(self) -> None:
            self.features, self.labels = tensors(torch)

        def __len__(self) -> int:
            return len(self.features)

        def __getitem__(self, index):
            return {"features": self.features[index], "labels": self.labels[index]}

    class Recorder(transformers.TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            record.mark("run_start")

        def on_step_begin(self, args, state, control, **kwargs):
            record.mark_training_start(state.global_step)
            record.begin("train_step")

        def on_step_end(self, args, state, control, **kwargs):
            record.end("train_step")

        def on_epoch_end(self, args, state, control, **kwargs):
            record.mark("epoch_end", epoch=round(state.epoch) - 1, step=state.global_step)

        def on_train_end(self, args, state, control, **kwargs):
            record.mark("run_end", status="completed")

    def collate(items):
        # Evaluation batches load fast: data_loading is the training batches' loading.
        if len(items) == BATCH_SIZE:
            record.sleep("data_loading")
        return torch.utils.data.default_collate(items)

    log_path = folder / "transformers.jsonl"
    args = transformers.TrainingArguments(
        output_dir=str(folder / "transformers_output"),
        num_train_epochs=EPOCHS,
        per_device_train_batch_size=BATCH_SIZE,
        per_device_eval_batch_size=SAMPLES // 2,
        learning_rate=0.1,
        eval_strategy="epoch",
        save_strategy="epoch",
        logging_strategy="no",
        report_to="none",
        disable_tqdm=True,
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = transformers.Trainer(
        model=TinyRegressor(),
        args=args,
        train_dataset=Samples(),
        eval_dataset=Samples(),
        data_collator=collate,
        callbacks=[RunlensTrainerCallback(log_path, collection=COLLECTION, task="transformers"), Recorder()],
    )
    # The test's own timing of the work the Trainer does between steps.
    get_batch_samples, evaluate, save = trainer.get_batch_samples, trainer.evaluate, trainer._save_checkpoint

    def recorded_get_batch_samples(*args, **kwargs):
        with record.span("data_loading"):
            return get_batch_samples(*args, **kwargs)

    def recorded_evaluate(*args, **kwargs):
        with record.span("eval"):
            return evaluate(*args, **kwargs)

    def recorded_save(*args, **kwargs):
        with record.span("checkpoint_save"):
            record.sleep("checkpoint_save")
            save(*args, **kwargs)
        record.mark("checkpoint", step=trainer.state.global_step)

    trainer.get_batch_samples, trainer.evaluate, trainer._save_checkpoint = (
        recorded_get_batch_samples,
        recorded_evaluate,
        recorded_save,
    )
    trainer.train()
    return Training("transformers", log_path, record)


# -- Keras 3 on the torch backend ----------------------------------------------------------------


def keras_on_torch():
    """Keras on its torch backend (TensorFlow is not installed)."""
    if "keras" not in sys.modules:
        os.environ.setdefault("KERAS_BACKEND", "torch")
    framework_module("torch")
    keras = framework_module("keras")
    if keras.backend.backend() != "torch":
        pytest.skip(f"keras runs on {keras.backend.backend()}, this test wants the torch backend")
    return keras


def train_keras(folder: Path) -> Training:
    keras = keras_on_torch()
    import numpy as np
    from runlens_callbacks.keras import RunlensKerasCallback

    record = Record()

    class SlowLayer(keras.layers.Layer):
        def call(self, inputs, training=None):
            if record.marks:  # not while Keras builds the model, before the fit
                record.sleep("train_step" if training else "eval")
            return inputs

    class SlowSaving(keras.Sequential):
        def save_weights(self, *args, **kwargs):
            with record.span("checkpoint_save"):
                record.sleep("checkpoint_save")
                super().save_weights(*args, **kwargs)

    class Batches(keras.utils.PyDataset):
        def __init__(self, batch_size: int, slow: bool) -> None:
            super().__init__()
            generator = np.random.default_rng(0)
            self.features = generator.normal(size=(SAMPLES, 4)).astype("float32")
            self.targets = generator.normal(size=(SAMPLES, 1)).astype("float32")
            self.batch_size, self.slow = batch_size, slow

        def __len__(self) -> int:
            return SAMPLES // self.batch_size

        def __getitem__(self, index):
            if self.slow and record.marks:  # Keras reads a first batch to build the model before the fit
                record.sleep("data_loading")
            rows = slice(index * self.batch_size, (index + 1) * self.batch_size)
            return self.features[rows], self.targets[rows]

    class Recorder(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            record.mark("run_start")

        def on_epoch_begin(self, epoch, logs=None):
            record.begin("data_loading")

        def on_train_batch_begin(self, batch, logs=None):
            record.mark_training_start(0)  # a fresh fit: the optimizer has taken no step
            record.end("data_loading")
            record.begin("train_step")

        def on_train_batch_end(self, batch, logs=None):
            record.end("train_step")
            record.begin("data_loading")

        def on_test_begin(self, logs=None):
            record.end("data_loading")
            record.begin("eval")

        def on_test_end(self, logs=None):
            record.end("eval")

        def on_epoch_end(self, epoch, logs=None):
            record.mark("epoch_end", epoch=epoch, step=STEPS_PER_EPOCH * (epoch + 1))

        def on_train_end(self, logs=None):
            record.mark("run_end", status="completed")

    class RecordedCheckpoint(keras.callbacks.ModelCheckpoint):
        def on_epoch_end(self, epoch, logs=None):
            super().on_epoch_end(epoch, logs)
            record.mark("checkpoint", step=STEPS_PER_EPOCH * (epoch + 1))

    keras.utils.set_random_seed(0)
    model = SlowSaving([keras.Input((4,)), SlowLayer(), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    log_path = folder / "keras.jsonl"
    model.fit(
        Batches(BATCH_SIZE, slow=True),
        validation_data=Batches(SAMPLES // 2, slow=False),
        epochs=EPOCHS,
        verbose=0,
        callbacks=[
            RunlensKerasCallback(log_path, collection=COLLECTION, task="keras", config={"lr": 0.1, "layers": [4, 1]}),
            Recorder(),
            RecordedCheckpoint(str(folder / "keras_checkpoints" / "epoch{epoch}.weights.h5"), save_weights_only=True),
        ],
    )
    return Training("keras", log_path, record)


# -- a plain PyTorch loop with the writer itself -------------------------------------------------


def train_plain_loop(folder: Path) -> Training:
    torch = framework_module("torch")
    from runlens_writer import start_run
    from torch.utils.data import DataLoader, TensorDataset

    record = Record()
    features, targets = tensors(torch)
    loader = DataLoader(TensorDataset(features, targets), batch_size=BATCH_SIZE, collate_fn=slow_collate(record))
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    log_path = folder / "plain_loop.jsonl"
    config = {"lr": torch.tensor(0.1).item(), "optimizer": {"name": "sgd"}, "out": folder / "plain_loop.pt"}
    step = 0
    with start_run(log_path, collection=COLLECTION, task="plain_loop", config=config) as log:
        record.mark("run_start")
        log.train_start(step=0)
        record.mark("train_start", step=0)
        for epoch in range(EPOCHS):
            for batch_features, batch_targets in log.timed(TimedBatches(loader, record)):
                with log.section("train_step"), record.span("train_step"):
                    record.sleep("train_step")
                    loss = torch.nn.functional.mse_loss(model(batch_features), batch_targets)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                step += 1
            with log.section("eval"), record.span("eval"), torch.no_grad():
                record.sleep("eval")
                torch.nn.functional.mse_loss(model(features), targets)
            with log.section("checkpoint_save"), record.span("checkpoint_save"):
                record.sleep("checkpoint_save")
                torch.save(model.state_dict(), folder / "plain_loop.pt")
            log.checkpoint(step)
            record.mark("checkpoint", step=step)
            log.epoch_end(epoch=epoch, step=step)
            record.mark("epoch_end", epoch=epoch, step=step)
    record.mark("run_end", status="completed")
    return Training("plain_loop", log_path, record)


TRAININGS = {
    "lightning": train_lightning,
    "transformers": train_transformers,
    "keras": train_keras,
    "plain_loop": train_plain_loop,
}


@pytest.fixture(scope="session")
def writer_training(request, tmp_path_factory, prebuilds):
    """Factory: the recorded training of a framework, trained once per test session (with the
    session's background builds done: the records time the trainings)."""
    trained: dict[str, Training] = {}

    def training(framework: str) -> Training:
        if framework not in trained:
            prebuilds.settle()
            trained[framework] = TRAININGS[framework](tmp_path_factory.mktemp(f"writer_{framework}"))
        return trained[framework]

    return training
