"""A real training killed with SIGKILL part-way through an epoch and resumed from its last
checkpoint (issue 31, tests/support/killed_trainings.py): the goodput marts give its downtime, its redone
training and its second start-up within 5% of what the training recorded of itself.

The expected figures come from the sessions' own records and from this test's own moment of the
kill, never from the runlens log:
- downtime: the kill to the moment the second session began (just before its run_start);
- redone training: the checkpoint the second session restored (its own record of that checkpoint
  on disk; for Lightning, the checkpoint file's modification time) to the kill;
- second start-up: the second session's beginning to its first training step.
The marts see the kill only as the first session's last line, a little before it, so their
downtime is a little longer and their redone training a little shorter.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.support import killed_trainings
from tests.support.pipeline import DATABASE, PROJECT, REPO, build
from tests.support.writer_trainings import framework_module

TOLERANCE = 0.05
KILL_AFTER_STEPS = 60  # into the second epoch: its 80 steps stop at 60


def records(folder: Path) -> list[dict]:
    path = folder / "record.jsonl"
    if not path.exists():
        return []
    # the training writes this file while it is read (and a SIGKILL may cut its last line): only
    # the lines it finished, those that end in a newline, count
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n")[:-1] if line]


def session(kind: str, folder: Path) -> subprocess.Popen:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "writer"), str(REPO)])}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.killed_trainings", kind, str(folder)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def kill_mid_epoch(process: subprocess.Popen, folder: Path) -> float:
    """SIGKILL once the first session is KILL_AFTER_STEPS steps into its second epoch; the moment."""
    wanted = killed_trainings.STEPS_PER_EPOCH + KILL_AFTER_STEPS
    deadline = time.monotonic() + 120
    while not any(line["what"] == "step" and line["step"] >= wanted for line in records(folder)):
        assert process.poll() is None, f"the training ended before the kill: {process.stderr.read().decode()[-3000:]}"
        assert time.monotonic() < deadline, "the training did not get to the kill in 120 s"
        time.sleep(0.005)
    killed_at = time.time()
    process.send_signal(signal.SIGKILL)
    process.wait()
    return killed_at


@pytest.mark.parametrize("kind", ["plain", "lightning"])
def test_a_killed_and_resumed_training_gives_its_downtime_redone_training_and_start_up(kind, tmp_path):
    framework_module("torch")
    if kind == "lightning":
        framework_module("lightning.pytorch")
    first = session(kind, tmp_path)
    killed_at = kill_mid_epoch(first, tmp_path)
    assert first.returncode == -signal.SIGKILL
    checkpoint_saved = {
        "plain": lambda: max(line["at"] for line in records(tmp_path) if line["what"] == "checkpoint"),
        "lightning": lambda: max(path.stat().st_mtime_ns for path in (tmp_path / "checkpoints").glob("*.ckpt")) / 1e9,
    }[kind]()
    time.sleep(1.0)  # down
    second = session(kind, tmp_path)
    _, errors = second.communicate(timeout=300)
    assert second.returncode == 0, errors.decode()[-3000:]

    own = [line for line in records(tmp_path) if line["pid"] == second.pid]
    began = next(line["at"] for line in own if line["what"] == "run_start")
    training = next(line for line in own if line["what"] == "train_start")
    assert training["step"] == killed_trainings.STEPS_PER_EPOCH  # it resumed from the first epoch's end
    expected = {
        "down": began - killed_at,
        "redone": killed_at - checkpoint_saved,
        "second start-up": training["at"] - began,
    }

    build(PROJECT, tmp_path / "logs", tmp_path / "marts" / DATABASE)
    with duckdb.connect(str(tmp_path / "marts" / DATABASE), read_only=True) as marts:
        sessions = marts.execute(
            "select session_index, down_seconds, redone_seconds, start_up_seconds, restored_step, is_restore_inferred"
            " from fct_run_sessions where run_id = ? order by session_index",
            [kind],
        ).fetchall()
        status = marts.execute("select status from fct_run_goodput where run_id = ?", [kind]).fetchone()
    assert [(index, step, inferred) for index, *_, step, inferred in sessions] == [
        (1, None, False),
        (2, killed_trainings.STEPS_PER_EPOCH, False),
    ]
    assert status == ("completed",)
    found = {"down": sessions[0][1], "redone": sessions[0][2], "second start-up": sessions[1][3]}
    assert found == {name: pytest.approx(value, rel=TOLERANCE) for name, value in expected.items()}
