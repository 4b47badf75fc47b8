"""The writer's durability promises with real processes (writer/runlens_writer.py, issue 12).

- Several processes appending to one file at once, with lines far longer than a pipe buffer
  (70 KB configs), never interleave partial lines: every line parses and each writer's lines are
  all there, in its own order.
- A writer killed with SIGKILL at random moments, again and again, each time resumed into the same
  file, leaves only whole lines plus at most one truncated last line per kill (a truncated line
  is then ended before the resumed run writes, so it never swallows the next line).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time

from tests.support.pipeline import REPO

WRITER = REPO / "writer"
PARALLEL_WRITERS = 4
ROUNDS = 8
EPOCH_ENDS_PER_ROUND = 40
KILLS = 6

APPENDING_WRITER = """
import os, sys, time
import runlens_writer

path, name, go = sys.argv[1], sys.argv[2], sys.argv[3]
blob = name * 70_000
open(go + "." + name, "w").close()  # imported and ready
while not os.path.exists(go):
    time.sleep(0.001)
log = runlens_writer.RunLog(path, run_id=name)
for round_index in range({rounds}):
    log.run_start("parallel", name, {{"round": round_index, "blob": blob}})
    for step in range({epoch_ends}):
        log.epoch_end(epoch=round_index, step=step)
    log.run_end()
"""

ENDLESS_WRITER = """
import sys
import runlens_writer

log = runlens_writer.start_run(sys.argv[1], collection="killed", task="t", config={"blob": "y" * 100_000})
print("ready", flush=True)
step = 0
while True:
    step += 1
    with log.section("train_step"):
        log.checkpoint(step)
    log.epoch_end(epoch=step, step=step)
    if step % 25 == 0:
        log.run_end()
        log.run_start("killed", "t", {"blob": "z" * 100_000, "step": step})
"""


def parsed(line: bytes) -> dict | None:
    try:
        return json.loads(line)
    except ValueError:
        return None


def writer_environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(WRITER)}


def test_parallel_writers_never_interleave_partial_lines(tmp_path):
    path, go = tmp_path / "shared.jsonl", tmp_path / "go"
    script = APPENDING_WRITER.format(rounds=ROUNDS, epoch_ends=EPOCH_ENDS_PER_ROUND)
    names = [chr(ord("a") + index) for index in range(PARALLEL_WRITERS)]
    writers = [
        subprocess.Popen([sys.executable, "-c", script, str(path), name, str(go)], env=writer_environment())
        for name in names
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"go.{name}").exists() for name in names) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()  # all start appending at once, each already started and imported
    assert [writer.wait(timeout=60) for writer in writers] == [0] * PARALLEL_WRITERS

    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    events = [json.loads(line) for line in lines[:-1]]  # every line whole
    for name in names:
        own = [(event["event"], event.get("step"), event.get("epoch")) for event in events if event["run_id"] == name]
        expected = []
        for round_index in range(ROUNDS):
            expected.append(("run_start", None, None))
            expected.extend(("epoch_end", step, round_index) for step in range(EPOCH_ENDS_PER_ROUND))
            expected.extend([("profile", None, None), ("run_end", None, None)])
        assert own == expected, name
        configs = [event["config"] for event in events if event["run_id"] == name and event["event"] == "run_start"]
        assert all(config["blob"] == name * 70_000 for config in configs)
    # the writers really did run at the same time: their lines alternate (one after another
    # would switch writers PARALLEL_WRITERS - 1 times)
    switches = sum(1 for before, after in itertools.pairwise(events) if before["run_id"] != after["run_id"])
    assert switches > PARALLEL_WRITERS - 1


def test_a_writer_killed_at_random_moments_leaves_only_whole_lines(tmp_path):
    path = tmp_path / "killed.jsonl"
    seed = time.time_ns()
    chance = random.Random(seed)
    for kill in range(KILLS):
        writer = subprocess.Popen(
            [sys.executable, "-c", ENDLESS_WRITER, str(path)],
            env=writer_environment(),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout.readline() == "ready\n"
        time.sleep(chance.uniform(0.0, 0.25))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
        writer.stdout.close()

        content = path.read_bytes()
        lines = content.split(b"\n")
        # a line that does not parse can only be one truncated by an earlier kill, ended by the resume after
        # it; this kill may have left the last line unfinished
        truncated_lines = sum(parsed(line) is None for line in lines[:-1]) + (lines[-1] != b"")
        assert truncated_lines <= kill + 1, f"seed {seed}: more than one truncated line per kill"

    events = [event for event in map(parsed, path.read_bytes().splitlines()) if event is not None]
    run_starts = [event for event in events if event["event"] == "run_start"]
    assert len(run_starts) >= KILLS, f"seed {seed}"
    assert {event["run_id"] for event in events} == {"killed"}
