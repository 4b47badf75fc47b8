"""runlens callback for the Hugging Face ``transformers.Trainer``.

    trainer = Trainer(..., callbacks=[RunlensTrainerCallback("logs/run-42.jsonl", collection="sweep-3", task="glue")])

Markers, from the Trainer's callback events:

- ``run_start`` at ``on_train_begin``, with ``config=`` or else ``args.to_sanitized_dict()``; the rank
  is ``args.process_index`` and the world size ``args.world_size``;
- ``train_start`` (step = ``state.global_step``: the restored checkpoint's on a resume) at the
  first ``on_step_begin``, once the set-up and the first step's batches are done;
- ``checkpoint`` (step = ``state.global_step``) at ``on_save``, which the Trainer calls once the
  checkpoint folder is written, with the cumulative profile;
- ``epoch_end`` (the 0-based epoch; step) at ``on_epoch_end``;
- ``run_end`` (completed) at ``on_train_end``.

The Trainer tells callbacks nothing about exceptions. To record a crash as a failed run, run the
training inside the callback's RunLog: ``with callback.run_log: trainer.train()`` writes
``run_end`` with ``failed: <ExceptionType>`` and re-raises. Without it a crashed run stays
incomplete.

Sections. The Trainer calls no event when evaluation or saving starts, so the callback follows the
training loop's phases: ``data_loading`` from ``on_epoch_begin`` or the end of the previous step's
work to ``on_step_begin`` (the Trainer fetches all of a step's micro-batches first); ``train_step``
from ``on_step_begin`` to ``on_step_end`` (forward and backward of every micro-batch, the optimizer
step); then what the Trainer's control flags announce at ``on_step_end`` and ``on_epoch_end``:
``eval`` until ``on_evaluate`` when ``should_evaluate`` is set, ``checkpoint_save`` until ``on_save``
when ``should_save`` is set. Logging done between a step and its evaluation or save counts in that
section; after an epoch's last step or its evaluation and save, the time until the next epoch is in
no section. With more than one rank, ``train_step`` holds the gradient all-reduce of the backward and
is marked collective (the Trainer tells callbacks nothing between forward and backward).

Profiles. As the writer's RunLog writes them: after each checkpoint, at run_end, and while the run goes
on at most every ``profile_every`` seconds (a constructor argument, default 60; None: never) as a
section closes, so the log's last line says when a killed run was last alive.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from transformers import TrainerCallback

from runlens_callbacks._phases import PhaseSections
from runlens_writer import PROFILE_EVERY_SECONDS, RunLog, json_config


class RunlensTrainerCallback(TrainerCallback):
    """Writes a runlens event log of each ``trainer.train()`` (see the module docstring)."""

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
        self.run_log = RunLog(path, run_id, per_rank_files=per_rank_files, profile_every=profile_every)
        self._collection, self._task, self._config = collection, task, config
        self._phase = PhaseSections(self.run_log)
        self._ranked = False  # more than one rank: train_step holds a collective
        self._epoch = 0
        self._after_epoch = False

    def on_train_begin(self, args, state, control, **kwargs) -> None:
        if self.run_log.rank is None:
            self.run_log.rank = args.process_index
        if self.run_log.world_size is None:
            self.run_log.world_size = args.world_size
        self._ranked = self.run_log.world_size > 1
        config = self._config
        if config is None:
            config = json_config(args.to_sanitized_dict(), lenient=True)
        self.run_log.run_start(self._collection, self._task, config)
        if args.eval_on_start:
            self._phase.switch("eval")

    def on_epoch_begin(self, args, state, control, **kwargs) -> None:
        self._epoch, self._after_epoch = int(state.epoch or 0), False
        self._phase.switch("data_loading")

    def on_step_begin(self, args, state, control, **kwargs) -> None:
        if self.run_log.is_active and not self.run_log.is_training:
            self.run_log.train_start(step=state.global_step)
        self._phase.switch("train_step", collective=self._ranked)

    def on_step_end(self, args, state, control, **kwargs) -> None:
        self._phase.switch(self._work_announced(control, otherwise="data_loading"))

    def on_evaluate(self, args, state, control, **kwargs) -> None:
        if self._phase.current == "eval":
            self._phase.switch("checkpoint_save" if control.should_save else self._between_steps())

    def on_save(self, args, state, control, **kwargs) -> None:
        self._phase.stop()
        if self.run_log.is_active:
            self.run_log.checkpoint(state.global_step)
        self._phase.switch(self._between_steps())

    def on_epoch_end(self, args, state, control, **kwargs) -> None:
        self._phase.stop()
        self._after_epoch = True
        if self.run_log.is_active:
            self.run_log.epoch_end(epoch=self._epoch, step=state.global_step)
        self._phase.switch(self._work_announced(control, otherwise=None))

    def on_train_end(self, args, state, control, **kwargs) -> None:
        self._phase.stop()
        if self.run_log.is_active:
            self.run_log.run_end("completed")

    def _work_announced(self, control, otherwise: str | None) -> str | None:
        if control.should_evaluate:
            return "eval"
        if control.should_save:
            return "checkpoint_save"
        return otherwise

    def _between_steps(self) -> str | None:
        return None if self._after_epoch else "data_loading"
