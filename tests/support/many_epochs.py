"""A generated fixture of many-epoch runs, shaped like a fairseq training (issue 14).

Every epoch trains, saves a checkpoint when its training is done, logs epoch_end a little later,
then validates and saves again, logging a checkpoint of the same step when that save is done (no
training step between them, so after the last epoch this is the final tail's saving). Per run, with the
seconds below:

    run_start -first_training-> checkpoint -to_epoch_end-> epoch_end -validation-> checkpoint
              -training-> checkpoint -to_epoch_end-> epoch_end -validation-> checkpoint ... (EPOCHS)

and after the last epoch's validation checkpoint, `tail` seconds to run_end; a run with
`ends_at_epoch_end` stops instead at its last epoch_end (no last validation, run_end at the
same moment). The first epoch's training is slower (first_training > training).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

COLLECTION = "many-epochs"
EPOCHS = 50
START = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Run:
    run_id: str
    task: str
    first_training: int
    training: int
    to_epoch_end: int
    validation: int
    tail: int
    ends_at_epoch_end: bool


RUNS = (
    Run("translate-1", "translate", 600, 300, 10, 60, 30, False),
    Run("translate-2", "translate", 620, 320, 10, 60, 30, False),
    Run("translate-3", "translate", 640, 340, 10, 60, 30, False),
    Run("summarize-1", "summarize", 600, 200, 5, 120, 0, True),
    Run("summarize-2", "summarize", 640, 240, 5, 120, 0, True),
)


def events(run: Run, started: datetime) -> list[dict]:
    """The run's events in time order."""
    clock, step, lines = started, 0, []

    def add(kind: str, **fields) -> None:
        lines.append({"run_id": run.run_id, "event": kind, "ts": clock.isoformat().replace("+00:00", "Z"), **fields})

    add("run_start", collection=COLLECTION, task=run.task, config={"max_epoch": EPOCHS})
    for epoch in range(1, EPOCHS + 1):
        clock += timedelta(seconds=run.first_training if epoch == 1 else run.training)
        step += 100
        add("checkpoint", step=step)
        clock += timedelta(seconds=run.to_epoch_end)
        add("epoch_end", epoch=epoch, step=step)
        if epoch == EPOCHS and run.ends_at_epoch_end:
            break
        clock += timedelta(seconds=run.validation)
        add("checkpoint", step=step)  # the save after validation: the epoch's own step, no training
    clock += timedelta(seconds=run.tail)
    add("run_end", status="completed")
    return lines


def write(raw: Path) -> Path:
    """One JSONL file per run under raw/<collection>/; returns raw."""
    folder = raw / COLLECTION
    folder.mkdir(parents=True, exist_ok=True)
    for number, run in enumerate(RUNS):
        lines = events(run, START + timedelta(days=number))
        (folder / f"{run.run_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return raw
