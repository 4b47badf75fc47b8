"""Generated logs of the shapes real sweeps take, for the golden pages (issue 21): one raw folder,
a collection (or a pair) per shape, all judged as of the sample's as-of time (2025-03-10 12:00 UTC).

- `writer-quick`: two runs the writer logged in a few seconds (3.4 s and 4.8 s), with profiler
  sections that measured saving (`checkpoint_save`).
- `epochs-new` against `epochs-old`: two collections of 50-epoch runs with other markers (new
  validates after each epoch end, then saves at step 250 x epoch; old saves at 100 x epoch, then
  ends the epoch), the new epochs about 90 s (the five slowest 92.5, 90.5, 88.5, 88.5, 88 s).
- `sweep-live`: a sweep in progress: 9 completed runs of 3 tasks, 3 running, 1 stalled (silent for
  40 minutes) and 1 abandoned (silent for two days), with a run whose run_start is misspelt (so
  it is on no page but the index).
- `history`: a sweep that ended a week before the as-of time, with one run that died then: its
  run_end is misspelt (`RunEnd`), so it never ended; its last event is a week old.
- `mix-new` against `mix-old`: 24 tasks; new is 10% faster on every task but ran 6 runs each of
  the 6 slowest tasks and 1 of the others, old 3 of each: the raw means say slower.

Every duration is a whole number of seconds chosen here, so the tests work out the figures by hand.
"""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

AS_OF = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
COLLECTIONS = (
    ("writer-quick", "Writer, runs of a few seconds", None),
    ("epochs-old", "Fifty epochs, old markers", None),
    ("epochs-new", "Fifty epochs, new markers", "epochs-old"),
    ("sweep-live", "A sweep in progress", None),
    ("history", "A sweep that ended last week", None),
    ("mix-old", "Twenty-four tasks, even mix", None),
    ("mix-new", "Twenty-four tasks, skewed mix", "mix-old"),
)
# epochs-new: the epoch durations in seconds, by epoch (50), the same for both runs but a shift
NEW_EPOCHS = [92.5, 90.5, 88.5, 88.5, 88.0] + [80.0 + (epoch % 7) for epoch in range(45)]
OLD_EPOCHS = [120.0 + (epoch % 5) * 2 for epoch in range(50)]
MIX_TASKS = [f"task-{number:02d}" for number in range(1, 25)]


def stamp(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Log:
    """One run's lines, in the order they are written."""

    def __init__(self, run_id: str, started: datetime) -> None:
        self.run_id, self.clock, self.lines = run_id, started, []

    def add(self, event: str, after: float = 0.0, **fields) -> None:
        self.clock += timedelta(seconds=after)
        self.lines.append(json.dumps({"run_id": self.run_id, "event": event, "ts": stamp(self.clock), **fields}))

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.run_id}.jsonl").write_text("\n".join(self.lines) + "\n", encoding="utf-8")


def writer_runs(raw: Path) -> None:
    """Two runs shaped as runlens' writer writes them: run_start, per epoch a checkpoint with the
    cumulative profile after it and an epoch_end, then the final profile and run_end."""
    for run_id, epoch_seconds, start in (("quick-1", (1.5, 1.5), 0), ("quick-2", (2.2, 2.2), 60)):
        log = Log(run_id, AS_OF - timedelta(days=1) + timedelta(seconds=start))
        log.add("run_start", collection="writer-quick", task="regression", config={"lr": 0.01})
        sections = {"train_step": 0.0, "data_loading": 0.0, "eval": 0.0, "checkpoint_save": 0.0}
        elapsed = 0.0
        for epoch, seconds in enumerate(epoch_seconds):
            for name, share in (("train_step", 0.5), ("data_loading", 0.2), ("eval", 0.1), ("checkpoint_save", 0.2)):
                sections[name] = round(sections[name] + seconds * share, 6)
            elapsed += seconds
            log.add("checkpoint", seconds, step=10 * (epoch + 1))
            log.add("profile", 0.000001, wall_seconds=round(elapsed, 6), sections=dict(sections), final=False)
            log.add("epoch_end", 0.0, epoch=epoch, step=10 * (epoch + 1))
        log.add("profile", 0.4, wall_seconds=round(elapsed + 0.4, 6), sections=dict(sections), final=True)
        log.add("run_end", 0.000001, status="completed")
        log.write(raw / "writer-quick")


def epoch_runs(raw: Path) -> None:
    """epochs-new: per epoch, training then epoch_end, validation then a save at 250 x epoch;
    epochs-old: a save at 100 x epoch, then epoch_end. Two runs each, a day apart."""
    for number in range(2):
        new = Log(f"new-{number + 1}", AS_OF - timedelta(days=5 - number))
        new.add("run_start", collection="epochs-new", task="translate", config={"arch": "sandwich"})
        for epoch, seconds in enumerate(NEW_EPOCHS, start=1):
            # epoch k runs from one epoch end to the next: its save (10 s) and its training; the
            # two runs' epochs are 0.5 s either side of NEW_EPOCHS, so their means are NEW_EPOCHS
            new.add("epoch_end", seconds - (0 if epoch == 1 else 10) - 0.5 + number, epoch=epoch)
            new.add("checkpoint", 10.0, step=250 * epoch)
        new.add("run_end", 30.0, status="completed")
        new.write(raw / "epochs-new")
        old = Log(f"old-{number + 1}", AS_OF - timedelta(days=9 - number))
        old.add("run_start", collection="epochs-old", task="translate", config={"arch": "baseline"})
        for epoch, seconds in enumerate(OLD_EPOCHS, start=1):
            old.add("checkpoint", seconds - 5 - 0.5 + number, step=100 * epoch)
            old.add("epoch_end", 5.0, epoch=epoch, step=100 * epoch)
        old.add("run_end", 45.0, status="completed")
        old.write(raw / "epochs-old")


def markers(log: Log, interval: float, steps: int, collection: str, task: str, end: bool = True) -> None:
    """run_start, a checkpoint every `interval` seconds at steps 100, 200, ..., then (with `end`)
    an epoch_end after the last and run_end 5 minutes later."""
    log.add("run_start", collection=collection, task=task, config={"task": task})
    for step in range(1, steps + 1):
        log.add("checkpoint", interval, step=100 * step)
    if end:
        log.add("epoch_end", interval, epoch=1, step=100 * steps)
        log.add("run_end", 300.0, status="completed")


def live_runs(raw: Path) -> None:
    """sweep-live: 3 tasks of 3 completed runs (10 checkpoints 6, 8 or 10 minutes apart by task),
    then the runs still going: running ones at steps 300, 500, 800; one stalled after step 400 for
    40 minutes; one abandoned after step 200 for two days. And orphan-1, whose run_start is misspelt."""
    folder = raw / "sweep-live"
    intervals = {"alpha": 360.0, "beta": 480.0, "gamma": 600.0}
    for task, interval in intervals.items():
        for number in range(3):
            # each peer at its own pace, and its last stretches slower or faster than its pace says
            log = Log(f"{task}-{number + 1}", AS_OF - timedelta(hours=20 - 2 * number))
            log.add("run_start", collection="sweep-live", task=task, config={"task": task})
            pace = interval + 30 * number
            for step in range(1, 11):
                log.add("checkpoint", pace if step <= 8 else pace + (number - 1) * 120, step=100 * step)
            log.add("epoch_end", pace, epoch=1, step=1000)
            log.add("run_end", 300.0, status="completed")
            log.write(folder)
    for run_id, task, steps, silent in (
        ("alpha-running", "alpha", 3, 120.0),
        ("beta-running", "beta", 5, 200.0),
        ("gamma-running", "gamma", 8, 300.0),
        ("beta-stalled", "beta", 4, 2400.0),
        ("gamma-abandoned", "gamma", 2, 2 * 86400.0),
    ):
        interval = intervals[task]
        log = Log(run_id, AS_OF - timedelta(seconds=silent + interval * steps))
        markers(log, interval, steps, "sweep-live", task, end=False)
        log.write(folder)
    orphan = Log("orphan-1", AS_OF - timedelta(hours=3))
    orphan.add("runstart", collection="sweep-live", task="alpha")
    orphan.add("checkpoint", 360.0, step=100)
    orphan.add("checkpoint", 360.0, step=200)
    orphan.write(folder)


def history_runs(raw: Path) -> None:
    """history: 8 completed runs, one a day, each 2 hours with 5 checkpoints (2 tasks), ending by
    2025-03-02; history-09 logs its checkpoints, then `RunEnd` on 2025-03-03 12:00: a week
    before the as-of time, it never ended. A file of its lines holds a checkpoint without a step."""
    folder = raw / "history"
    first = datetime(2025, 2, 22, 8, 0, tzinfo=UTC)
    for number in range(8):
        log = Log(f"history-{number + 1:02d}", first + timedelta(days=number))
        markers(log, 1200.0 + 60 * (number % 2), 5, "history", "short" if number % 2 else "long")
        log.write(folder)
    dead = Log("history-09", datetime(2025, 3, 3, 12, 0, tzinfo=UTC) - timedelta(seconds=6 * 1200.0))
    markers(dead, 1200.0, 5, "history", "long", end=False)
    dead.add("epoch_end", 1200.0, epoch=1, step=500)
    dead.lines.append(
        json.dumps({"run_id": "history-09", "event": "RunEnd", "ts": stamp(dead.clock), "status": "completed"})
    )
    dead.write(folder)
    (folder / "history-09-late.jsonl").write_text(
        json.dumps({"run_id": "history-09", "event": "checkpoint", "ts": stamp(dead.clock)}) + "\n", encoding="utf-8"
    )


def mix_runs(raw: Path) -> None:
    """mix-old: 3 runs of each of 24 tasks, task k's runs (k = 1..24) taking 600 + 150 k seconds
    plus 0, 60, 120; mix-new: 10% less on each, 6 runs of tasks 19..24 (the slowest), 1 of each
    of the others. One checkpoint halfway, an epoch end, run_end 60 s later."""
    for collection, share, counts in (
        ("mix-old", 1.0, {task: 3 for task in MIX_TASKS}),
        ("mix-new", 0.9, {task: 6 if index >= 18 else 1 for index, task in enumerate(MIX_TASKS)}),
    ):
        started = AS_OF - timedelta(days=3 if collection == "mix-old" else 2)
        for index, task in enumerate(MIX_TASKS, start=1):
            for number in range(counts[task]):
                total = share * (600 + 150 * index + 60 * (number % 3))
                log = Log(f"{collection}-{task}-{number + 1}", started)
                log.add("run_start", collection=collection, task=task, config={"task": task})
                log.add("checkpoint", (total - 60) / 2, step=100)
                log.add("epoch_end", (total - 60) / 2, epoch=1, step=200)
                log.add("run_end", 60.0, status="completed")
                log.write(raw / collection)
                started += timedelta(seconds=total + 30)


def write(raw: Path) -> Path:
    """Every shape's logs and the folder's collections file under raw; returns raw."""
    raw.mkdir(parents=True, exist_ok=True)
    for make in (writer_runs, epoch_runs, live_runs, history_runs, mix_runs):
        make(raw)
    with (raw / "runlens_collections.csv").open("w", newline="", encoding="utf-8") as handle:
        rows = csv.writer(handle, lineterminator="\n")
        rows.writerow(["collection", "title", "baseline_collection", "design_url", "results_url"])
        rows.writerows([[collection, title, baseline or "", "", ""] for collection, title, baseline in COLLECTIONS])
    return raw
