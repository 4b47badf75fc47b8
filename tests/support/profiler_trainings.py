"""Tiny real trainings that write framework profiler reports and their loggers' files, without runlens.

Lightning: a linear model on 16 samples, two epochs of four steps, a validation of two batches per
epoch (and the sanity check's two), a checkpoint per epoch, with `SimpleProfiler` or
`AdvancedProfiler` writing `fit-<filename>.txt` and a TensorBoard logger (or a CSV logger alone).
Each validation_step sleeps VALIDATION_SLEEP seconds, so evaluation has a known lower bound.

Hugging Face: a linear regressor built here (no download), 8 steps, an evaluation every 2 steps and
a checkpoint every 4, reporting to TensorBoard; its evaluation forward sleeps EVAL_SLEEP seconds.

Frameworks missing: skip (fail under RUNLENS_REQUIRE_FRAMEWORKS=1), as writer_trainings.py does.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.writer_trainings import framework_module, tensors

VALIDATION_SLEEP = 0.05
EPOCHS = 2
VALIDATION_CALLS = 2 + EPOCHS * 2  # the sanity check's two batches, then two per epoch
EVAL_SLEEP = 0.05
HF_MAX_STEPS = 8
HF_EVAL_STEPS = 2
HF_SAVE_STEPS = 4


def train_lightning(folder: Path, profiler: str, logger: str = "tensorboard", dirpath: Path | None = None) -> Path:
    """Run the training; returns the profiler's report file."""
    torch = framework_module("torch")
    pl = framework_module("lightning.pytorch")
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
    from lightning.pytorch.profilers import AdvancedProfiler, SimpleProfiler
    from torch.utils.data import DataLoader, TensorDataset

    class TinyModule(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            features, targets = batch
            return torch.nn.functional.mse_loss(self.layer(features), targets)

        def validation_step(self, batch, batch_idx):
            time.sleep(VALIDATION_SLEEP)
            features, targets = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.layer(features), targets))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    chosen = TensorBoardLogger(folder, name="tb") if logger == "tensorboard" else CSVLogger(folder, name="csv")
    kind = {"simple": SimpleProfiler, "advanced": AdvancedProfiler}[profiler]
    report_dir = dirpath or Path(chosen.log_dir)
    dataset = TensorDataset(*tensors(torch))
    trainer = pl.Trainer(
        max_epochs=EPOCHS,
        accelerator="cpu",
        devices=1,
        logger=chosen,
        profiler=kind(dirpath=report_dir, filename="perf"),
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=folder,
    )
    trainer.fit(TinyModule(), DataLoader(dataset, batch_size=4), DataLoader(dataset, batch_size=8))
    return report_dir / "fit-perf.txt"


def train_transformers(folder: Path) -> Path:
    """Run the Trainer; returns its output_dir."""
    torch = framework_module("torch")
    transformers = framework_module("transformers")
    framework_module("accelerate")

    class TinyRegressor(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def forward(self, features, labels=None):
            if not self.training:
                time.sleep(EVAL_SLEEP)
            predictions = self.layer(features)
            return {"loss": torch.nn.functional.mse_loss(predictions, labels), "logits": predictions}

    class Samples(torch.utils.data.Dataset):
        def __init__(self) -> None:
            self.features, self.labels = tensors(torch)

        def __len__(self) -> int:
            return len(self.features)

        def __getitem__(self, index):
            return {"features": self.features[index], "labels": self.labels[index]}

    output = folder / "hf_output"
    args = transformers.TrainingArguments(
        output_dir=str(output),
        max_steps=HF_MAX_STEPS,
        per_device_train_batch_size=4,
        per_device_eval_batch_size=8,
        learning_rate=0.1,
        eval_strategy="steps",
        eval_steps=HF_EVAL_STEPS,
        save_strategy="steps",
        save_steps=HF_SAVE_STEPS,
        logging_steps=HF_EVAL_STEPS,
        report_to="tensorboard",
        disable_tqdm=True,
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = transformers.Trainer(model=TinyRegressor(), args=args, train_dataset=Samples(), eval_dataset=Samples())
    trainer.train()
    trainer.save_state()  # output_dir/trainer_state.json, with train_runtime (as HF's example scripts do)
    return output
