"""The generated logs of the goodput breakdown (issue 31) in tests/generated/goodput.

`python -m tests.support.goodput_fixture` writes them again (they are committed, so the parity test and
tests/pipeline/test_goodput.py read the same files). Every second of every run is planted here, one bucket
at a time, so that each figure the tests expect is worked out by hand from these plans (collection
goodput-a; times are seconds after the run's start):

- `resume` (task resume, 2 GPUs): run_start 0, train_start 100 (start-up 100), checkpoints at step
  100 (1100) and 200 (2100), a profile at 2600 and then a crash; run_start again at 3000 (down
  400), train_start at 3150 from step 200 (start-up 150, of which the profile's `restore` section
  takes 50), so the training from 2100 to 2600 is redone (500); checkpoint 300 at 4150, epoch_end
  at 4200, run_end and the final profile at 4500 (final tail 300). Sections: train_step 2000,
  checkpoint_save 120, validation_loss_eval 80 (evaluation, by the pattern `*_eval`), dataloader
  60, restore 50. Kept training 4500 - 250 - 400 - 500 - 300 = 3050 (100 to 2100 and 3150 to
  4200). Two profiles: the sections are on the timeline. The first profile's stretch [0, 2600]
  (train 1500, save 80, eval 50) trains in kept [100, 2100] and redone [2100, 2600]: 4/5 kept
  (train 1200, save 64, eval 40). The second profile carried the totals over the restart (wall 4100
  is 2600 + the 1500 s since the run_start), so its stretch [3000, 4500] took train 500, save 40,
  eval 30, dataloader 60, restore 50: the restore in start-up [3000, 3150], the rest over kept
  [3150, 4200] and the tail [4200, 4500], 7/9 kept (train 3500/9, save 280/9, eval 70/3, data
  loading 140/3). Kept: save 64 + 280/9 = 95.1, evaluation 40 + 70/3 = 63.3, data loading 46.7,
  productive 1200 + 3500/9 = 1588.9, unattributed 3050 less those = 1256.
- `failed` (task failed, 1 GPU): train_start 30 from step 0, checkpoint 50 at 500, run_end
  `failed: RuntimeError` at 800, never resumed: start-up 30, lost 300 (after the last checkpoint:
  nothing redid it), productive 470 (no sections: all the rest).
- `ranks` (task ranks, 4 GPUs): 2 ranks start at 0; train_start at 10 (rank 0) and 20 (rank 1):
  start-up 20 (training begins at its last rank); rank 1 reaches checkpoints 10 and 20 30 s after
  rank 0 (100/130, 230/260): 60 s lost to the slowest rank; run_end at 300: productive 220.
- `live` (task live, 1 GPU): starts 1000 s before the as-of time (2025-03-10T12:00:00Z),
  train_start at 40, checkpoint at 500, still running: wall 1000, start-up 40, productive 960.
- `gone` (task gone, 1 GPU): train_start 10, checkpoints at 100 and 200, a last profile at 260,
  then silence for nine days: abandoned, its time ends at its last event; lost 60 (after its last
  checkpoint), productive 190.
- `stalled` (task stalled, 1 GPU): starts 4300 s before the as-of time, train_start at 20,
  checkpoints at step 50 (500) and step 100 (1000), then silent for 3300 s: past the stall
  threshold (its task has no completed run, so its peers are the collection's: 3 times the 1000 s
  that `resume` took from step 100 to step 200, 3000 s) and short of the abandon threshold (the
  longest completed run of the collection, `resume`'s 3600 active seconds: 4500 less the 900 s
  from its last marker before the crash to the restart): stalled, its time runs to the as-of time:
  wall 4300, start-up 20, productive 980, silent 3300.
- `inferred` (task inferred, 1 GPU, no train_start): checkpoints 10 (100) and 20 (200), epoch_end
  at 250 (step 25), a crash, run_start at 400, checkpoint 30 at 600, run_end at 700: the restore is
  inferred (the latest checkpoint, 200), so redone 50 and down 150; start-up unmeasured (0, two
  sessions); checkpoint 30 saved a step past the last epoch_end's 25, so training went on after
  it: no final tail; productive 700 - 150 - 50 = 500.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

FOLDER = Path(__file__).parents[1] / "generated" / "goodput"
BASE = datetime(2025, 3, 1, tzinfo=UTC)
AS_OF = datetime(2025, 3, 10, 12, tzinfo=UTC)  # the sample's as-of time, which every test build uses
COLLECTION = "goodput-a"
# the goodput buckets in their order (macros/goodput.sql, goodput_buckets)
BUCKETS = (
    "productive",
    "start_up",
    "checkpoint_restore",
    "checkpoint_save",
    "evaluation",
    "data_loading",
    "rank_waiting",
    "down",
    "redone",
    "lost",
    "silent",
    "final_tail",
    "unattributed",
)


def ts(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def run_lines(run_id: str, start: datetime, events: list[tuple]) -> list[str]:
    """One line per (seconds after start, event, fields)."""
    lines = []
    for seconds, event, fields in events:
        record = {"run_id": run_id, "event": event, "ts": ts(start + timedelta(seconds=seconds)), **fields}
        lines.append(json.dumps(record, separators=(",", ":")))
    return lines


def starts(task: str, gpus: int) -> dict:
    return {"collection": COLLECTION, "task": task, "resources": {"gpus": gpus}}


def resume() -> list[str]:
    sections_at_crash = {"train_step": 1500.0, "checkpoint_save": 80.0, "validation_loss_eval": 50.0}
    sections = {
        "train_step": 2000.0,
        "checkpoint_save": 120.0,
        "validation_loss_eval": 80.0,
        "dataloader": 60.0,
        "restore": 50.0,
    }
    return run_lines(
        "resume",
        BASE,
        [
            (0, "run_start", starts("resume", 2)),
            (100, "train_start", {"step": 0}),
            (1100, "checkpoint", {"step": 100}),
            (2100, "checkpoint", {"step": 200}),
            (2600, "profile", {"wall_seconds": 2600.0, "sections": sections_at_crash, "final": False}),
            (3000, "run_start", starts("resume", 2)),
            (3150, "train_start", {"step": 200}),
            (4150, "checkpoint", {"step": 300}),
            (4200, "epoch_end", {"epoch": 0, "step": 300}),
            (4500, "profile", {"wall_seconds": 4100.0, "sections": sections, "final": True}),
            (4500, "run_end", {"status": "completed"}),
        ],
    )


def failed() -> list[str]:
    return run_lines(
        "failed",
        BASE + timedelta(hours=2),
        [
            (0, "run_start", starts("failed", 1)),
            (30, "train_start", {"step": 0}),
            (500, "checkpoint", {"step": 50}),
            (800, "run_end", {"status": "failed: RuntimeError"}),
        ],
    )


def ranks() -> list[str]:
    start = BASE + timedelta(hours=3)
    lines = []
    for rank, late in ((0, 0), (1, 30)):
        identity = {"rank": rank, "world_size": 2}
        run_start = {**identity, **(starts("ranks", 4) if rank == 0 else {"collection": COLLECTION, "task": "ranks"})}
        lines += run_lines(
            "ranks",
            start,
            [
                (0, "run_start", run_start),
                (10 + 10 * rank, "train_start", {**identity, "step": 0}),
                (100 + late, "checkpoint", {**identity, "step": 10}),
                (230 + late, "checkpoint", {**identity, "step": 20}),
                (300, "run_end", {**identity, "status": "completed"}),
            ],
        )
    return lines


def live() -> list[str]:
    return run_lines(
        "live",
        AS_OF - timedelta(seconds=1000),
        [
            (0, "run_start", starts("live", 1)),
            (40, "train_start", {"step": 0}),
            (500, "checkpoint", {"step": 100}),
        ],
    )


def gone() -> list[str]:
    return run_lines(
        "gone",
        BASE + timedelta(hours=4),
        [
            (0, "run_start", starts("gone", 1)),
            (10, "train_start", {"step": 0}),
            (100, "checkpoint", {"step": 10}),
            (200, "checkpoint", {"step": 20}),
            (260, "profile", {"wall_seconds": 260.0, "final": False}),
        ],
    )


def stalled() -> list[str]:
    return run_lines(
        "stalled",
        AS_OF - timedelta(seconds=4300),
        [
            (0, "run_start", starts("stalled", 1)),
            (20, "train_start", {"step": 0}),
            (500, "checkpoint", {"step": 50}),
            (1000, "checkpoint", {"step": 100}),
        ],
    )


def inferred() -> list[str]:
    return run_lines(
        "inferred",
        BASE + timedelta(hours=5),
        [
            (0, "run_start", starts("inferred", 1)),
            (100, "checkpoint", {"step": 10}),
            (200, "checkpoint", {"step": 20}),
            (250, "epoch_end", {"epoch": 0, "step": 25}),
            (400, "run_start", starts("inferred", 1)),
            (600, "checkpoint", {"step": 30}),
            (700, "run_end", {"status": "completed"}),
        ],
    )


def files() -> dict[str, list[str]]:
    return {
        "resume.jsonl": resume(),
        "failed.jsonl": failed(),
        "ranks.jsonl": ranks(),
        "live.jsonl": live(),
        "gone.jsonl": gone(),
        "stalled.jsonl": stalled(),
        "inferred.jsonl": inferred(),
    }


def write_folder(folder: Path, logs: dict[str, list[str]], collection: str, title: str) -> None:
    """The log files, a collections file naming the one collection, and the as-of time."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, lines in logs.items():
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    collections = ["collection,title,baseline_collection,design_url,results_url", f"{collection},{title},,,"]
    (folder / "runlens_collections.csv").write_text("\n".join(collections) + "\n", encoding="utf-8")
    (folder / "runlens_as_of.txt").write_text("2025-03-10T12:00:00Z\n", encoding="utf-8")


def write(folder: Path = FOLDER) -> None:
    write_folder(folder, files(), COLLECTION, "Goodput")


if __name__ == "__main__":
    write()
