"""The generated logs of utilization samples (issue 45) in tests/generated/utilization, whose figures
tests/pipeline/test_utilization.py works out by hand (its docstring): every line is written here, at
seconds from BASE. `python -m tests.support.utilization_fixture` writes the folder again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE

BASE = datetime(2025, 1, 1, tzinfo=UTC)
COLLECTION = "util"
BASELINE = "util-base"


def ts(seconds: float) -> str:
    return (BASE + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def line(run_id: str, event: str, at: float, **fields) -> str:
    return json.dumps({"run_id": run_id, "event": event, "ts": ts(at), **fields})


def sample(run_id: str, at: float, measurements, **fields) -> str:
    return line(run_id, "sample", at, measurements=measurements, **fields)


def steady() -> list[str]:
    """2 GPUs (resources); gpu 0 at 90% and gpu 1 at 50% until 100 s, then 10% and 30%, both at
    100% from 200 s; a sample every 20 s from 0 to 200."""
    lines = [
        line("util-steady", "run_start", 0, collection=COLLECTION, task="t1", resources={"gpus": 2}),
        line("util-steady", "checkpoint", 100, step=1),
        line("util-steady", "checkpoint", 200, step=2),
        line("util-steady", "epoch_end", 200, epoch=0, step=2),
        line("util-steady", "run_end", 220),
    ]
    for at in range(0, 201, 20):
        first, second = (90, 50) if at < 100 else (10, 30) if at < 200 else (100, 100)
        lines.append(sample("util-steady", at, {"gpu_utilization": first}, gpu=0))
        lines.append(sample("util-steady", at, {"gpu_utilization": second}, gpu=1))
    return lines


def gaps() -> list[str]:
    """No resources: 1 GPU, from the samples (gpu 0 of host h1); a gap from 10 s to 100 s; memory
    in GiB and power in mW; a copy, samples outside the run and six bad samples."""
    gpu = {"gpu": 0, "host": "h1"}
    return [
        line("util-gaps", "run_start", 0, collection=COLLECTION, task="t2"),
        line("util-gaps", "checkpoint", 120, step=1),
        line("util-gaps", "run_end", 120),
        sample("util-gaps", -30, {"gpu_utilization": 0}, **gpu),  # before run_start: set aside
        sample(
            "util-gaps",
            0,
            {"gpu_utilization": 40, "gpu_memory_used": 2, "gpu_power": 200000},
            units={"gpu_memory_used": "GiB", "gpu_power": "mW"},
            **gpu,
        ),
        sample("util-gaps", 10, {"gpu_utilization": 60, "gpu_memory_used": 2048}, **gpu),
        sample("util-gaps", 10, {"gpu_utilization": 60, "gpu_memory_used": 2048}, **gpu),  # a copy
        sample("util-gaps", 100, {"gpu_utilization": 100}, **gpu),
        sample("util-gaps", 170, {"gpu_utilization": 5}, **gpu),  # 50 s after the end: within the grace
        sample("util-gaps", 181, {"gpu_utilization": 5}, **gpu),  # 61 s after: set aside
        sample("util-gaps", 20, {"gpu_utilization": 50}, gpu=-1),
        sample("util-gaps", 20, {"gpu_memory_used": 5}, units={"gpu_memory_used": "furlong"}, **gpu),
        sample("util-gaps", 20, {"cpu_utilization": 20}, **gpu),
        sample("util-gaps", 20, {"tensor_core_activity": 1}, **gpu),
        sample("util-gaps", 20, {"gpu_utilization": 101}, **gpu),
        sample("util-gaps", 20, [1], **gpu),
    ]


def restart() -> list[str]:
    """1 GPU (resources); a crash after the checkpoint at 60 s and a restart at 160 s; 50% before
    the crash, 0% while it was down, 80% after the restart."""
    lines = [
        line("util-restart", "run_start", 0, collection=COLLECTION, task="t1", resources={"gpus": 1}),
        line("util-restart", "checkpoint", 60, step=1),
        line("util-restart", "run_start", 160, collection=COLLECTION, task="t1", resources={"gpus": 1}),
        line("util-restart", "checkpoint", 220, step=2),
        line("util-restart", "run_end", 220),
    ]
    for at, value in ((0, 50), (20, 50), (40, 50), (60, 0), (80, 0), (160, 80), (180, 80), (200, 80)):
        lines.append(sample("util-restart", at, {"gpu_utilization": value}, gpu=0))
    lines.append(
        sample(
            "util-restart", 30, {"cpu_utilization": 25, "process_memory_used": 3}, units={"process_memory_used": "GiB"}
        )
    )
    return lines


def unsampled() -> list[str]:
    """A run without samples."""
    return [
        line("util-unsampled", "run_start", 0, collection=COLLECTION, task="t1", resources={"gpus": 4}),
        line("util-unsampled", "checkpoint", 100, step=1),
        line("util-unsampled", "run_end", 100),
    ]


FOLDER = Path(__file__).parents[1] / "generated" / "utilization"


def baseline() -> list[str]:
    """The baseline collection util-base: 1 GPU (resources); 60% every 20 s from 0 to 80 s until the
    checkpoint and epoch end at 100 s, then 20% at 100 and 110 s until run_end at 120 s."""
    lines = [
        line("util-base-steady", "run_start", 0, collection=BASELINE, task="t1", resources={"gpus": 1}),
        line("util-base-steady", "checkpoint", 100, step=1),
        line("util-base-steady", "epoch_end", 100, epoch=0, step=1),
        line("util-base-steady", "run_end", 120),
    ]
    for at in (0, 20, 40, 60, 80, 100, 110):
        lines.append(sample("util-base-steady", at, {"gpu_utilization": 60 if at < 100 else 20}, gpu=0))
    return lines


def write(folder: Path = FOLDER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    runs = (("steady", steady()), ("gaps", gaps()), ("restart", restart()), ("unsampled", unsampled()))
    for name, lines in (*runs, ("base-steady", baseline())):
        (folder / f"util-{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / COLLECTIONS_FILE).write_text(
        "collection,title,baseline_collection,design_url,results_url\n"
        f"{BASELINE},Utilization baseline,,,\n{COLLECTION},Utilization,{BASELINE},,\n",
        encoding="utf-8",
    )
    return folder


if __name__ == "__main__":
    write()
