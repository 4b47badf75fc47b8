"""The generated logs of runs with several ranks in tests/generated/ranks (issue 22).

`python -m tests.support.ranks_fixture` writes them again (they are committed, so the parity test and
tests/pipeline/test_ranks.py read the same files). Every time is planned here, so each figure the tests
expect is worked out by hand from these plans (tests/pipeline/test_ranks.py says how):

- `straggler` (collection ranks-a, task ddp): 4 ranks, one file per rank. Each of 10 steps
  starts on every rank at once; ranks 0, 1 and 3 arrive at the step's checkpoint 10 s later, rank 2
  1.5 s after them (its markers are written before the collective); the collective ends 0.5 s
  after the last arrival and the next step starts. An epoch_end after steps 5 and 10, written after
  the collective (all ranks at one moment). Each rank's final profile has `forward` (its own work)
  and `backward` (a collective section).
- `dead-rank` (ranks-a, ddp): 64 ranks in one file; rank r arrives r ms after rank 0 at each of 6
  checkpoints 60 s apart; rank 17 writes nothing after step 3.
- `busy` (ranks-a, lightning): 2 ranks, markers after the collective (both ranks at one moment),
  a profile after each of 5 checkpoints: rank 1's `forward` takes 2 s more per interval and its
  `backward` (collective) 2 s less.
- `early-end` (ranks-a, edge): 2 ranks; rank 1 fails (run_end "failed: RuntimeError") at 15 s
  after step_1 while rank 0 goes on to step_2 at 20 s and writes nothing more.
- `resumed` (ranks-a, resumed): 2 ranks crash after step_2 and resume at 100 s; rank 1 arrives
  0.5 s late at step_1 and 1 s late at steps 2 to 4.
- `solo-ranked` and `solo-plain` (ranks-b, ddp): the same single-process run, once with
  `"rank": 0, "world_size": 1` on every line and once without.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

FOLDER = Path(__file__).parents[1] / "generated" / "ranks"
BASE = datetime(2025, 3, 1, tzinfo=UTC)  # before the sample's as-of time, which every test build uses


def ts(seconds: float) -> str:
    return (BASE + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def line(run_id: str, event: str, at: float, rank: int | None, world_size: int | None, **fields) -> str:
    record = {"run_id": run_id, "event": event, "ts": ts(at)}
    if rank is not None:
        record["rank"] = rank
    if world_size is not None:
        record["world_size"] = world_size
    record.update(fields)
    return json.dumps(record, separators=(",", ":"))


def straggler() -> dict[str, list[str]]:
    files = {}
    for rank in range(4):
        lines = [
            line(
                "straggler",
                "run_start",
                0.1 * rank,
                rank,
                4,
                collection="ranks-a",
                task="ddp",
                **({"config": {"lr": 0.1}} if rank == 0 else {}),
            )
        ]
        step_start = 1.0
        for step in range(1, 11):
            arrival = step_start + 10.0 + (1.5 if rank == 2 else 0.0)
            lines.append(line("straggler", "checkpoint", arrival, rank, 4, step=step))
            collective_end = step_start + 11.5 + 0.5
            if step % 5 == 0:
                lines.append(line("straggler", "epoch_end", collective_end, rank, 4, epoch=step // 5 - 1, step=step))
            step_start = collective_end
        # step_start is now 1 + 10 x 12 = 121
        forward = 115.0 if rank == 2 else 100.0
        lines.append(
            line(
                "straggler",
                "profile",
                step_start + 0.5,
                rank,
                4,
                wall_seconds=121.0 - 0.1 * rank,
                sections={"forward": forward, "backward": 135.0 - forward - 15.0},
                collective_sections=["backward"],
            )
        )
        lines.append(line("straggler", "run_end", step_start + 1.0 + 0.01 * rank, rank, 4, status="completed"))
        files[f"straggler/straggler.rank{rank}.jsonl"] = lines
    return files


def dead_rank() -> dict[str, list[str]]:
    lines = []
    for rank in range(64):
        lines.append(line("dead-rank", "run_start", 0.0, rank, 64, collection="ranks-a", task="ddp"))
    for step in range(1, 7):
        for rank in range(64):
            if rank == 17 and step > 3:
                continue
            lines.append(line("dead-rank", "checkpoint", 60.0 * step + 0.001 * rank, rank, 64, step=step))
    for rank in range(64):
        if rank != 17:
            lines.append(line("dead-rank", "run_end", 400.0 + 0.001 * rank, rank, 64))
    return {"dead-rank.jsonl": lines}


def busy() -> dict[str, list[str]]:
    files = {}
    for rank in range(2):
        lines = [line("busy", "run_start", 0.0, rank, 2, collection="ranks-a", task="lightning")]
        forward = backward = 0.0
        for step in range(1, 6):
            forward += 6.0 + (2.0 if rank == 1 else 0.0)
            backward += 4.0 - (2.0 if rank == 1 else 0.0)
            lines.append(line("busy", "checkpoint", 10.0 * step, rank, 2, step=step))
            lines.append(
                line(
                    "busy",
                    "profile",
                    10.0 * step + 0.001,
                    rank,
                    2,
                    wall_seconds=10.0 * step,
                    sections={"forward": forward, "backward": backward},
                    collective_sections=["backward"],
                    final=step == 5,
                )
            )
        lines.append(line("busy", "run_end", 50.5, rank, 2))
        files[f"busy.rank{rank}.jsonl"] = lines
    return files


def early_end() -> dict[str, list[str]]:
    start = {"collection": "ranks-a", "task": "edge"}
    return {
        "early-end.jsonl": [
            line("early-end", "run_start", 0.0, 0, 2, **start),
            line("early-end", "run_start", 0.0, 1, 2, **start),
            line("early-end", "checkpoint", 10.0, 0, 2, step=1),
            line("early-end", "checkpoint", 10.0, 1, 2, step=1),
            line("early-end", "run_end", 15.0, 1, 2, status="failed: RuntimeError"),
            line("early-end", "checkpoint", 20.0, 0, 2, step=2),
        ]
    }


def resumed() -> dict[str, list[str]]:
    lines = []
    for rank, late in ((0, (0.0, 0.0)), (1, (0.5, 1.0))):
        start = {"collection": "ranks-a", "task": "resumed"}
        lines += [
            line("resumed", "run_start", 0.0, rank, 2, **start),
            line("resumed", "checkpoint", 10.0 + late[0], rank, 2, step=1),
            line("resumed", "checkpoint", 20.0 + late[1], rank, 2, step=2),
            line("resumed", "run_start", 100.0 + 0.2 * rank, rank, 2, **start),
            line("resumed", "checkpoint", 110.0 + late[1], rank, 2, step=3),
            line("resumed", "checkpoint", 120.0 + late[1], rank, 2, step=4),
            line("resumed", "run_end", 125.0 + 0.5 * rank, rank, 2),
        ]
    return {"resumed.jsonl": lines}


def solo() -> dict[str, list[str]]:
    files = {}
    for run_id, rank, world_size in (("solo-ranked", 0, 1), ("solo-plain", None, None)):
        files[f"{run_id}.jsonl"] = [
            line(run_id, "run_start", 0.0, rank, world_size, collection="ranks-b", task="ddp"),
            line(run_id, "checkpoint", 30.0, rank, world_size, step=100),
            line(run_id, "epoch_end", 31.0, rank, world_size, epoch=0, step=100),
            line(run_id, "checkpoint", 62.5, rank, world_size, step=200),
            line(run_id, "run_end", 70.0, rank, world_size),
        ]
    return files


def write(folder: Path = FOLDER) -> None:
    for relative, lines in {**straggler(), **dead_rank(), **busy(), **early_end(), **resumed(), **solo()}.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    collections = ["collection,title,baseline_collection,design_url,results_url", "ranks-a,Runs with ranks,,,"]
    collections.append("ranks-b,One rank,,,")
    (folder / "runlens_collections.csv").write_text("\n".join(collections) + "\n", encoding="utf-8")
    (folder / "runlens_as_of.txt").write_text("2025-03-10T12:00:00Z\n", encoding="utf-8")


if __name__ == "__main__":
    write()
