"""runlens callback for Keras 3 (``keras.callbacks.Callback``; any backend, TensorFlow not needed).

    model.fit(x, y, callbacks=[RunlensKerasCallback("logs/run-42.jsonl", collection="sweep-3", task="mnist"),
                               keras.callbacks.ModelCheckpoint("ckpt/{epoch}.weights.h5", save_weights_only=True)])

Markers, at the moments Keras does the work:

- ``run_start`` at ``on_train_begin``, with ``config=`` if given (Keras keeps no hyperparameters);
  when the distribution set by ``keras.distribution.set_distribution`` spans several processes, its
  process is the rank and its ``num_processes`` the world size (else the writer's own rules);
- ``train_start`` (step: the optimizer's ``iterations``, the restored count on a resume) at the
  first ``on_train_batch_begin``, once the set-up and the first batch are done;
- ``checkpoint`` once ``model.save`` or ``model.save_weights`` returns during the fit, whoever calls
  it (ModelCheckpoint or your own callback), with the cumulative profile; the step is the
  optimizer's ``iterations``;
- ``epoch_end`` (Keras' 0-based epoch; step) at ``on_epoch_end``;
- ``run_end`` (completed) at ``on_train_end``.

Keras tells callbacks nothing about exceptions: ``with callback.run_log: model.fit(...)`` records a
crash as ``failed: <ExceptionType>`` and re-raises; without it a crashed run stays incomplete.

Sections: ``data_loading`` from ``on_epoch_begin`` or ``on_train_batch_end`` to
``on_train_batch_begin`` (Keras fetches the batch in between); ``train_step`` from
``on_train_batch_begin`` to ``on_train_batch_end``; ``eval`` from ``on_test_begin`` to ``on_test_end``
(validation during the fit, with its data loading); ``checkpoint_save`` around ``model.save`` and
``model.save_weights``, which the callback wraps on the model for the fit and restores at the end.
With more than one process, ``train_step`` holds the gradient all-reduce and is marked collective.

Profiles. As the writer's RunLog writes them: after each checkpoint, at run_end, and while the run goes
on at most every ``profile_every`` seconds (a constructor argument, default 60; None: never) as a
section closes, so the log's last line says when a killed run was last alive.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import keras

from runlens_callbacks._phases import PhaseSections
from runlens_writer import PROFILE_EVERY_SECONDS, RunLog

SAVE_METHODS = ("save", "save_weights")


class RunlensKerasCallback(keras.callbacks.Callback):
    """Writes a runlens event log of each ``model.fit`` (see the module docstring)."""

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
        self._phase = PhaseSections(self.run_log)
        self._ranked = False  # more than one process: train_step holds a collective
        self._steps_seen = 0
        self._saving = False
        self._wrapped_model = None

    def on_train_begin(self, logs=None) -> None:
        self._take_processes(keras.distribution.distribution())
        self.run_log.run_start(self._collection, self._task, self._config)
        self._ranked = (self.run_log.world_size or 1) > 1
        self._wrap_saving(self.model)

    def on_epoch_begin(self, epoch, logs=None) -> None:
        self._phase.switch("data_loading")

    def on_train_batch_begin(self, batch, logs=None) -> None:
        if self.run_log.is_active and not self.run_log.is_training:
            self.run_log.train_start(step=self._global_step())
        self._phase.switch("train_step", collective=self._ranked)

    def on_train_batch_end(self, batch, logs=None) -> None:
        self._steps_seen += 1
        self._phase.switch("data_loading")

    def on_test_begin(self, logs=None) -> None:
        self._phase.switch("eval")

    def on_test_end(self, logs=None) -> None:
        self._phase.stop()

    def on_epoch_end(self, epoch, logs=None) -> None:
        self._phase.stop()
        if self.run_log.is_active:
            self.run_log.epoch_end(epoch=epoch, step=self._global_step())

    def on_train_end(self, logs=None) -> None:
        self._phase.stop()
        self._unwrap_saving()
        if self.run_log.is_active:
            self.run_log.run_end("completed")

    def _take_processes(self, distribution) -> None:
        """Rank and world size from a Keras distribution over several processes (multi-host JAX)."""
        processes = getattr(distribution, "num_processes", 1)
        if distribution is None or processes <= 1:
            return
        if self.run_log.world_size is None:
            self.run_log.world_size = processes
        process = getattr(distribution, "_process_id", None)  # Keras keeps it private
        if self.run_log.rank is None and process is not None:
            self.run_log.rank = process

    def _global_step(self) -> int:
        """The optimizer's step count (it survives a resumed fit), else the batches this callback saw."""
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is None:
            return self._steps_seen
        return int(keras.ops.convert_to_numpy(iterations))

    # Keras reports no checkpoint event: the callback times the model's own save methods.

    def _wrap_saving(self, model) -> None:
        self._unwrap_saving()
        for name in SAVE_METHODS:
            object.__setattr__(model, name, self._timed_save(getattr(model, name)))
        self._wrapped_model = model

    def _unwrap_saving(self) -> None:
        if self._wrapped_model is not None:
            for name in SAVE_METHODS:
                vars(self._wrapped_model).pop(name, None)
            self._wrapped_model = None

    def _timed_save(self, save):
        def timed_save(*args, **kwargs):
            if self._saving or not self.run_log.is_active:  # a save inside a save is one checkpoint
                return save(*args, **kwargs)
            self._saving = True
            try:
                with self.run_log.section("checkpoint_save"):
                    result = save(*args, **kwargs)
            finally:
                self._saving = False
            self.run_log.checkpoint(self._global_step())
            return result

        return timed_save
