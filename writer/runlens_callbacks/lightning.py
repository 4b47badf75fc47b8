"""runlens callback for PyTorch Lightning 2 (``lightning.pytorch``).

    trainer = Trainer(callbacks=[RunlensLightningCallback("logs/run-42.jsonl", collection="sweep-3", task="mnist")])

Markers, at the moments Lightning does the work:

- ``run_start`` at ``on_fit_start``, with ``config=`` or else the module's ``hparams`` (values that
  are not JSON written as their ``str()``); the rank is ``trainer.global_rank`` and the world size
  ``trainer.world_size``;
- ``train_start`` (step = ``trainer.global_step``: the restored checkpoint's on a resume) at the
  fit's first ``on_train_batch_start``, once its set-up, sanity check and first batch are done;
- ``checkpoint`` (step = ``trainer.global_step``) when ``Trainer.save_checkpoint`` has written the
  file, whoever called it (ModelCheckpoint or you), with the cumulative profile;
- ``epoch_end`` (epoch = ``trainer.current_epoch``, 0-based; step) at ``on_train_epoch_end``;
- ``run_end`` at ``on_fit_end`` (completed) or ``on_exception`` (``failed: <ExceptionType>``).

Sections: ``train_step`` from ``on_train_batch_start`` to ``on_train_batch_end`` (forward, backward,
optimizer step); ``eval`` from ``on_validation_start`` to ``on_validation_end`` (the sanity check
too, with the loading of validation batches); ``checkpoint_save`` around ``save_checkpoint``;
``data_loading`` around each fetch of a training batch. The last two come from the actions
Lightning reports to its profiler (``save_checkpoint``, ``[_TrainingEpochLoop].train_dataloader_next``):
the callback wraps ``trainer.profiler``'s start and stop for the fit, passing every call on to the
profiler you chose, and restores them at teardown.

Ranks. With more than one rank (DDP and the like), every rank's lines carry its rank and the world
size, and the step is timed in two sections instead of ``train_step``: ``forward`` from
``on_train_batch_start`` to ``on_before_backward`` (the rank's own work: training_step, loss) and
``backward`` from ``on_before_backward`` to ``on_train_batch_end`` (the backward with DDP's gradient
all-reduce, and the optimizer step), marked collective; ``checkpoint_save`` is marked collective
too, for ``Trainer.save_checkpoint`` ends in a barrier. The checkpoint marker comes after that
barrier and ``epoch_end`` after the epoch's last all-reduce, so they reach every rank at about the
same moment: a slow rank shows in its busy time (``forward`` against the wall time), not in when it
reached the markers. With manual optimization, what follows the first ``manual_backward`` of a step
counts as ``backward``.

Profiles. As the writer's RunLog writes them: after each checkpoint, at run_end, and while the run goes
on at most every ``profile_every`` seconds (a constructor argument, default 60; None: never) as a
section closes, so the log's last line says when a killed run was last alive.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import lightning.pytorch as pl

from runlens_callbacks._phases import PhaseSections
from runlens_writer import PROFILE_EVERY_SECONDS, OpenSection, RunLog, failed_status, json_config

SAVE_ACTION = "save_checkpoint"
TRAIN_FETCH_ACTION = "[_TrainingEpochLoop].train_dataloader_next"
PROFILED_SECTIONS = {SAVE_ACTION: "checkpoint_save", TRAIN_FETCH_ACTION: "data_loading"}


class RunlensLightningCallback(pl.Callback):
    """Writes a runlens event log of each ``trainer.fit`` (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        collection: str,
        task: str,
        config: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        per_rank_files: bool = False,
        profile_every: float | None = PROFILE_EVERY_SECONDS,
    ) -> None:
        super().__init__()
        self.run_log = RunLog(path, run_id, per_rank_files=per_rank_files, profile_every=profile_every)
        self._collection, self._task, self._config = collection, task, config
        self._train_step = PhaseSections(self.run_log)
        self._ranked = False  # more than one rank: forward and backward instead of train_step
        self._eval = PhaseSections(self.run_log)
        self._profiled: dict[str, OpenSection] = {}
        self._trainer: pl.Trainer | None = None
        self._profiler = None

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        if stage == "fit":
            self._trainer = trainer
            self._wrap_profiler(trainer.profiler)

    def on_fit_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.run_log.rank is None:
            self.run_log.rank = trainer.global_rank
        if self.run_log.world_size is None:
            self.run_log.world_size = trainer.world_size
        self._ranked = self.run_log.world_size > 1
        config = self._config
        if config is None and pl_module.hparams:
            config = json_config(dict(pl_module.hparams), lenient=True)
        self.run_log.run_start(self._collection, self._task, config)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self.run_log.is_active and not self.run_log.is_training:
            self.run_log.train_start(step=trainer.global_step)
        self._train_step.switch("forward" if self._ranked else "train_step")

    def on_before_backward(self, trainer, pl_module, loss) -> None:
        if self._ranked:
            self._train_step.switch("backward", collective=True)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self._train_step.stop()

    def on_validation_start(self, trainer, pl_module) -> None:
        self._eval.switch("eval")

    def on_validation_end(self, trainer, pl_module) -> None:
        self._eval.stop()

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if self.run_log.is_active:
            self.run_log.epoch_end(epoch=trainer.current_epoch, step=trainer.global_step)

    def on_fit_end(self, trainer, pl_module) -> None:
        self._end("completed")

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        self._end(failed_status(type(exception)))

    def teardown(self, trainer, pl_module, stage: str) -> None:
        if stage == "fit":
            self._unwrap_profiler()
            self._trainer = None

    def _end(self, status: str) -> None:
        for phase in (self._train_step, self._eval):
            phase.stop()
        if self.run_log.is_active:
            self.run_log.run_end(status)

    # Lightning reports data loading and checkpoint saving only to its profiler.

    def _wrap_profiler(self, profiler) -> None:
        self._unwrap_profiler()
        start, stop = profiler.start, profiler.stop

        def start_action(action_name: str) -> None:
            start(action_name)
            self._action_started(action_name)

        def stop_action(action_name: str) -> None:
            self._action_stopped(action_name)
            stop(action_name)

        profiler.start, profiler.stop = start_action, stop_action  # instance attributes over the methods
        self._profiler = profiler

    def _unwrap_profiler(self) -> None:
        if self._profiler is not None:
            for name in ("start", "stop"):
                vars(self._profiler).pop(name, None)
            self._profiler = None

    def _action_started(self, action_name: str) -> None:
        section = PROFILED_SECTIONS.get(action_name)
        if section is not None and self.run_log.is_active and action_name not in self._profiled:
            collective = self._ranked and action_name == SAVE_ACTION  # the save ends in a barrier
            self._profiled[action_name] = self.run_log.open_section(section, collective=collective)

    def _action_stopped(self, action_name: str) -> None:
        handle = self._profiled.pop(action_name, None)
        if handle is None:
            return
        handle.close()
        if action_name == SAVE_ACTION and self.run_log.is_active and self._trainer is not None:
            self.run_log.checkpoint(self._trainer.global_step)
