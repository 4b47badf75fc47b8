"""Helpers for the importer tests: unpack the real-training fixtures and read what was imported.

The fixtures under tests/fixtures/importers/<name>/ were written by scripts/make_importer_fixtures.py
from real tiny trainings. Weights are not kept: `manifest.json` lists each removed checkpoint file
and folder with its modification time, and `materialize` re-creates them empty with those times.
`record.json` is the training's own record of when things happened (Unix seconds):
run_start / run_end as a bracket [ts, ts_after], checkpoints as [save_started, ts], epoch ends
as ts. The exception is `fairseq/`: text logs written by hand in fairseq 0.12's line format (its
README says why), read as they are.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from datetime import datetime
from pathlib import Path

from tests.support.pipeline import REPO

FIXTURES = REPO / "tests" / "fixtures" / "importers"
EXACT = 0.1  # seconds: the tolerance for a marker the importer calls exact
APPROXIMATE = 1.0  # seconds: for one it flags as approximate


EMPTY_TRAINER_STATE = b'{"global_step": 0, "log_history": []}\n'


def materialize(name: str, destination: Path, checkpoints: bool = True) -> Path:
    """Copy fixture `name` to destination/name, unpack its database, re-create its checkpoints."""
    target = destination / name
    shutil.copytree(FIXTURES / name, target)
    for packed in sorted(target.rglob("*.db.gz")):
        with gzip.open(packed, "rb") as source, packed.with_suffix("").open("wb") as unpacked:
            shutil.copyfileobj(source, unpacked)
        packed.unlink()
    if checkpoints:
        removed = json.loads((target / "manifest.json").read_text())["removed"]
        for entry in removed:
            path = target / entry["path"]
            if entry["kind"] == "dir":
                path.mkdir(parents=True, exist_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                # an empty stand-in; a trainer_state.json gets the smallest the Trainer writes (the
                # hf_trainer_state importer reads it: an empty file would be a bad report)
                path.write_bytes(EMPTY_TRAINER_STATE if path.name == "trainer_state.json" else b"")
        # times last, files before folders (creating a file changes its folder's time)
        for entry in sorted(removed, key=lambda e: (e["kind"] == "dir", -e["path"].count("/"))):
            os.utime(target / entry["path"], ns=(entry["mtime_ns"], entry["mtime_ns"]))
    return target


def record(name: str) -> dict:
    return json.loads((FIXTURES / name / "record.json").read_text())


def seconds(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def imported(out: Path) -> dict[str, list[dict]]:
    """run_id -> its lines, from every JSONL file the importer wrote (rejects excluded)."""
    runs: dict[str, list[dict]] = {}
    for path in sorted(out.rglob("*.jsonl")):
        if path.name == "_import_rejects.jsonl":
            continue
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            runs.setdefault(line["run_id"], []).append(line)
    return runs


def rejects(out: Path) -> list[dict]:
    path = out / "_import_rejects.jsonl"
    return [json.loads(raw) for raw in path.read_text().splitlines()] if path.exists() else []


def only_run(out: Path) -> list[dict]:
    runs = imported(out)
    assert len(runs) == 1, sorted(runs)
    return next(iter(runs.values()))


def of(lines: list[dict], event: str) -> list[dict]:
    return [line for line in lines if line["event"] == event]


def assert_within(line: dict, low: float, high: float) -> None:
    """The marker's time lies in [low, high], widened by the tolerance its flag claims."""
    tolerance = APPROXIMATE if line["is_approximate"] else EXACT
    at = seconds(line["ts"])
    assert low - tolerance <= at <= high + tolerance, (
        f"{line['event']} step={line.get('step')} epoch={line.get('epoch')} at {at:.3f}, "
        f"record [{low:.3f}, {high:.3f}] +- {tolerance} ({'approximate' if line['is_approximate'] else 'exact'})"
    )


def assert_matches_record(lines: list[dict], rec: dict, checkpoints_exact: bool | None = None) -> None:
    """Every marker matches the training's own record: steps and epochs exactly, times within the
    tolerance of the marker's own flag."""
    (start,) = of(lines, "run_start")
    assert_within(start, rec["run_start"]["ts"], rec["run_start"]["ts_after"])

    ends = of(lines, "run_end")
    if ends:
        (end,) = ends
        assert_within(end, rec["run_end"]["ts"], rec["run_end"]["ts_after"])

    checkpoints = of(lines, "checkpoint")
    assert sorted(c["step"] for c in checkpoints) == sorted(c["step"] for c in rec["checkpoints"])
    by_step = {c["step"]: c for c in rec["checkpoints"]}
    for line in checkpoints:
        if checkpoints_exact is not None:
            assert line["is_approximate"] is not checkpoints_exact, line
        assert_within(line, by_step[line["step"]]["save_started"], by_step[line["step"]]["ts"])

    epochs = of(lines, "epoch_end")
    assert [e["epoch"] for e in epochs] == [e["epoch"] for e in rec["epoch_ends"]]
    by_epoch = {e["epoch"]: e for e in rec["epoch_ends"]}
    for line in epochs:
        if "step" in line:
            assert line["step"] == by_epoch[line["epoch"]]["step"], line
        assert_within(line, by_epoch[line["epoch"]]["ts"], by_epoch[line["epoch"]]["ts"])

    for line in lines:
        assert line["is_approximate"] == (line["approximation"] is not None), line
        assert line["source_format"] in ("tensorboard", "mlflow", "text", "wandb")
        assert line["source_path"]


def importer_extra(module: str):
    """The importer extra's module (tensorboard, wandb), or a skip without it; CI sets
    RUNLENS_REQUIRE_IMPORTERS=1 (.ci/run), so that a missing extra fails the run instead."""
    import importlib

    import pytest

    if os.environ.get("RUNLENS_REQUIRE_IMPORTERS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)
