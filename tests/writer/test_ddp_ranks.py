"""Distributed training with real torch.distributed process groups (issues 12 and 22), on the lines.

- Two processes join a gloo group on 127.0.0.1 with no rank variable set, so the writer learns rank
  and world size from torch.distributed alone: by default only rank 0 writes, with its rank on
  every line; with per_rank_files=True each rank writes its own file of the same run.
- Four-process trainings (tests/support/ddp_trainings.py), one by the writer in a plain DDP loop and one by
  the Lightning callback under strategy="ddp", with rank SLOW_RANK sleeping EXTRA_SECONDS more per
  step before the step's collective: the lines of each rank, its markers, its collective sections,
  and its busy time against the training's own record of every rank's steps.

- The marts built from each training: the slow rank named as the straggling rank, and every other
  rank's time lost to it within 10% of the planted total, and as the training's own record says.

(Rank variables and explicit ranks are tested without torch in tests/writer/test_writer.py; the rank marts
on generated logs with hand-worked figures in tests/pipeline/test_ranks.py.)
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import types
from datetime import datetime
from pathlib import Path

import duckdb
import jsonschema
import pytest

from tests.support import ddp_trainings
from tests.support.ddp_trainings import COLLECTION, LIGHTNING_RUN_ID, TASK, WRITER_RUN_ID
from tests.support.pipeline import DATABASE, PROJECT, REPO, build
from tests.support.writer_trainings import framework_module, keras_on_torch

WORLD_SIZE = 4
STEPS = 20
SLOW_RANK = 2
EXTRA_SECONDS = 0.05
# planted: 0.05 s more local work per step on the slow rank, over 20 steps = 1.0 s
PLANTED_SECONDS = 1.0
LINE_START = ["run_id", "event", "ts", "rank", "world_size"]
SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text(encoding="utf-8"))

RANKED_WRITER = """
import sys
import torch.distributed as distributed
import runlens_writer

folder, port, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
for per_rank_files in (False, True):
    with runlens_writer.start_run(f"{folder}/ddp.jsonl", collection="ddp", task="t",
                                  config={"writer_rank": rank}, per_rank_files=per_rank_files) as log:
        with log.section("all_reduce", collective=True):
            distributed.barrier()
        log.checkpoint(1)
distributed.destroy_process_group()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def seconds(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def test_a_process_group_writes_one_run_with_ranks_from_rank_zero_or_from_every_rank(tmp_path):
    framework_module("torch.distributed")
    environment = {name: value for name, value in os.environ.items() if name not in ddp_trainings.LAUNCHER_VARIABLES}
    environment["PYTHONPATH"] = str(REPO / "writer")
    port = free_port()
    ranks = [
        subprocess.Popen([sys.executable, "-c", RANKED_WRITER, str(tmp_path), str(port), str(rank)], env=environment)
        for rank in (0, 1)
    ]
    assert [process.wait(timeout=120) for process in ranks] == [0, 0]

    assert sorted(path.name for path in tmp_path.iterdir()) == ["ddp.jsonl", "ddp.rank0.jsonl", "ddp.rank1.jsonl"]
    shared = events(tmp_path / "ddp.jsonl")
    assert [event["event"] for event in shared] == ["run_start", "checkpoint", "profile", "profile", "run_end"]
    assert {(event["run_id"], event["rank"], event["world_size"]) for event in shared} == {("ddp", 0, 2)}
    assert shared[0]["config"] == {"writer_rank": 0}
    for rank in (0, 1):
        own = events(tmp_path / f"ddp.rank{rank}.jsonl")
        assert {(event["run_id"], event["rank"], event["world_size"]) for event in own} == {("ddp", rank, 2)}
        assert ("config" in own[0]) == (rank == 0)
        assert [event["collective_sections"] for event in own if event["event"] == "profile"] == [["all_reduce"]] * 2


# -- four ranks, one slow ------------------------------------------------------------------------


class Trained:
    """One 4-rank training: its lines per rank and its own record of every rank's steps."""

    def __init__(self, raw: Path, run_id: str, record: dict[int, list[dict]]) -> None:
        self.raw, self.run_id, self.record = raw, run_id, record
        self.lines = {rank: events(raw / f"{run_id}.rank{rank}.jsonl") for rank in range(WORLD_SIZE)}

    def markers(self, rank: int) -> list[tuple]:
        return [
            (event["event"], event.get("epoch"), event.get("step"))
            for event in self.lines[rank]
            if event["event"] in ("checkpoint", "epoch_end")
        ]

    def profiles(self, rank: int) -> list[dict]:
        return [event for event in self.lines[rank] if event["event"] == "profile"]

    def final_sections(self, rank: int) -> dict[str, float]:
        return self.profiles(rank)[-1]["sections"]

    def recorded_local_seconds(self, rank: int) -> float:
        return sum(step["local_seconds"] for step in self.record[rank])


def train(tmp_path_factory, harness, run_id: str) -> Trained:
    folder = tmp_path_factory.mktemp(run_id)
    record = harness(
        folder / "raw", folder / "record.json", steps=STEPS, slow_rank=SLOW_RANK, extra_seconds=EXTRA_SECONDS
    )
    return Trained(folder / "raw", run_id, record)


@pytest.fixture(scope="module")
def writer_ddp(tmp_path_factory) -> Trained:
    return train(tmp_path_factory, ddp_trainings.run_writer_ddp, WRITER_RUN_ID)


@pytest.fixture(scope="module")
def lightning_ddp(tmp_path_factory) -> Trained:
    return train(tmp_path_factory, ddp_trainings.run_lightning_ddp, LIGHTNING_RUN_ID)


@pytest.fixture(params=["writer", "lightning"])
def trained(request) -> Trained:
    return request.getfixturevalue(f"{request.param}_ddp")


def test_every_rank_writes_its_own_file_of_one_run_with_its_rank_on_every_line(trained):
    expected_files = [f"{trained.run_id}.rank{rank}.jsonl" for rank in range(WORLD_SIZE)]
    assert sorted(path.name for path in trained.raw.iterdir()) == expected_files
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for rank, lines in trained.lines.items():
        for event in lines:
            validator.validate(event)
        assert all(list(event)[:5] == LINE_START for event in lines)
        assert {(event["run_id"], event["rank"], event["world_size"]) for event in lines} == {
            (trained.run_id, rank, WORLD_SIZE)
        }
        assert [event["event"] for event in lines[:1] + lines[-2:]] == ["run_start", "profile", "run_end"]
        assert lines[-1]["status"] == "completed" and lines[-2]["final"] is True


def test_only_rank_zero_starts_the_run_with_its_config(writer_ddp, lightning_ddp):
    expected = {
        writer_ddp: {"model": "linear", "world_size": WORLD_SIZE, "slow_rank": SLOW_RANK},  # the loop's config
        lightning_ddp: {"slow_rank": SLOW_RANK, "extra_seconds": EXTRA_SECONDS},  # the module's hparams
    }
    for trained, config in expected.items():
        for rank, lines in trained.lines.items():
            start = {"collection": COLLECTION, "task": TASK} | ({"config": config} if rank == 0 else {})
            assert {key: value for key, value in lines[0].items() if key not in LINE_START} == start


def test_the_writer_loop_marks_every_step_on_every_rank_before_its_collective(writer_ddp):
    planned = [("checkpoint", None, step) for step in range(1, STEPS + 1)] + [("epoch_end", 0, STEPS)]
    for rank in range(WORLD_SIZE):
        assert writer_ddp.markers(rank) == planned
        # each checkpoint line follows the training's own arrival moment (taken just before the
        # call) within the writing of the line, and comes before the backward it precedes
        checkpoints = [event for event in writer_ddp.lines[rank] if event["event"] == "checkpoint"]
        arrivals = [step["arrived_at"] for step in writer_ddp.record[rank]]
        lags = [seconds(line["ts"]) - arrived for line, arrived in zip(checkpoints, arrivals, strict=True)]
        assert all(-2e-6 <= lag < 0.05 for lag in lags), lags  # ts is cut to the microsecond


def test_a_marker_after_the_collective_reaches_every_rank_at_about_the_same_moment(writer_ddp):
    # the epoch_end after the last backward: the slow rank's 0.05 s per step is hidden in the others' waits
    ends = [seconds(writer_ddp.lines[rank][-3]["ts"]) for rank in range(WORLD_SIZE)]
    assert [writer_ddp.lines[rank][-3]["event"] for rank in range(WORLD_SIZE)] == ["epoch_end"] * WORLD_SIZE
    assert max(ends) - min(ends) < EXTRA_SECONDS


def test_lightning_marks_each_epoch_end_and_checkpoint_on_every_rank(lightning_ddp):
    # two epochs of 10 steps; ModelCheckpoint saves after the callbacks' epoch end
    planned = [("epoch_end", 0, 10), ("checkpoint", None, 10), ("epoch_end", 1, 20), ("checkpoint", None, 20)]
    for rank in range(WORLD_SIZE):
        assert lightning_ddp.markers(rank) == planned
        assert [step["step"] for step in lightning_ddp.record[rank]] == list(range(1, STEPS + 1))


def test_the_collective_sections_are_listed_once_opened(writer_ddp, lightning_ddp):
    for rank in range(WORLD_SIZE):
        # the writer loop: the first checkpoint comes before the first backward
        listed = [profile.get("collective_sections") for profile in writer_ddp.profiles(rank)]
        assert listed == [None] + [["backward"]] * STEPS  # the 19 later checkpoints' profiles and run_end's
        assert set(writer_ddp.final_sections(rank)) == {"forward", "backward", "optimizer"}
        # Lightning: by the first save, both the backward and the save (its barrier) were opened
        listed = [profile.get("collective_sections") for profile in lightning_ddp.profiles(rank)]
        assert listed == [["backward", "checkpoint_save"]] * 3  # two checkpoints, run_end
        assert set(lightning_ddp.final_sections(rank)) == {"forward", "backward", "checkpoint_save", "data_loading"}


def test_the_slow_rank_is_busier_by_the_planted_time_as_its_own_record_says(trained):
    forward = {rank: trained.final_sections(rank)["forward"] for rank in range(WORLD_SIZE)}
    recorded = {rank: trained.recorded_local_seconds(rank) for rank in range(WORLD_SIZE)}
    for rank in range(WORLD_SIZE):
        # the record's spans and the forward sections begin and end within a few calls of each other
        assert abs(recorded[rank] - forward[rank]) < 0.02 + 0.02 * recorded[rank], (rank, forward, recorded)
    others = [rank for rank in range(WORLD_SIZE) if rank != SLOW_RANK]
    excess = forward[SLOW_RANK] - statistics.mean(forward[rank] for rank in others)
    recorded_excess = recorded[SLOW_RANK] - statistics.mean(recorded[rank] for rank in others)
    assert abs(excess - PLANTED_SECONDS) <= 0.1 * PLANTED_SECONDS, (excess, forward)
    assert abs(excess - recorded_excess) < 0.02, (excess, recorded_excess)
    # the fast ranks' wait for it is in their collective backward, not in their busy time
    backward = {rank: trained.final_sections(rank)["backward"] for rank in range(WORLD_SIZE)}
    assert all(backward[rank] > backward[SLOW_RANK] + 0.5 * PLANTED_SECONDS for rank in others), backward


# -- the other callbacks, given a framework's ranks ----------------------------------------------


def ranked_lines(folder: Path, name: str, rank: int) -> list[dict]:
    assert sorted(path.name for path in folder.glob("*.jsonl")) == [f"{name}.rank{rank}.jsonl"]
    return events(folder / f"{name}.rank{rank}.jsonl")


def test_the_hf_trainer_callback_takes_the_trainers_process_index_and_world_size(tmp_path):
    framework_module("transformers")
    from runlens_callbacks.transformers import RunlensTrainerCallback

    # what the Trainer hands its callbacks on rank 1 of 2 (TrainingArguments' fields the callback reads)
    args = types.SimpleNamespace(
        process_index=1, world_size=2, eval_on_start=False, to_sanitized_dict=lambda: {"learning_rate": 0.1}
    )
    state = types.SimpleNamespace(epoch=0.0, global_step=0)
    control = types.SimpleNamespace(should_evaluate=False, should_save=True)
    callback = RunlensTrainerCallback(tmp_path / "hf.jsonl", collection="c", task="t", per_rank_files=True)
    callback.on_train_begin(args, state, control)
    callback.on_epoch_begin(args, state, control)
    callback.on_step_begin(args, state, control)
    state.global_step = 1
    callback.on_step_end(args, state, control)
    callback.on_save(args, state, control)
    callback.on_epoch_end(args, state, control)
    callback.on_train_end(args, state, control)
    lines = ranked_lines(tmp_path, "hf", 1)
    assert {(event["rank"], event["world_size"]) for event in lines} == {(1, 2)} and "config" not in lines[0]
    profiles = [event for event in lines if event["event"] == "profile"]
    assert [profile["collective_sections"] for profile in profiles] == [["train_step"]] * 2
    assert set(profiles[-1]["sections"]) == {"data_loading", "train_step", "checkpoint_save"}


def test_the_keras_callback_takes_a_multi_process_distributions_process(tmp_path, monkeypatch):
    keras = keras_on_torch()
    from runlens_callbacks.keras import RunlensKerasCallback

    # a distribution over 4 processes, as keras.distribution.DataParallel is on process 3 of a
    # multi-host JAX job (this backend, torch, has none to build)
    distribution = types.SimpleNamespace(num_processes=4, _process_id=3)
    monkeypatch.setattr(keras.distribution, "distribution", lambda: distribution)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    callback = RunlensKerasCallback(tmp_path / "keras.jsonl", collection="c", task="t", per_rank_files=True)
    callback.set_model(model)
    callback.on_train_begin()
    callback.on_epoch_begin(0)
    callback.on_train_batch_begin(0)
    callback.on_train_batch_end(0)
    callback.on_epoch_end(0)
    callback.on_train_end()
    lines = ranked_lines(tmp_path, "keras", 3)
    assert {(event["rank"], event["world_size"]) for event in lines} == {(3, 4)}
    assert lines[-2]["collective_sections"] == ["train_step"]


def test_the_keras_callback_leaves_a_single_process_as_it_was(tmp_path):
    keras = keras_on_torch()
    from runlens_callbacks.keras import RunlensKerasCallback

    assert keras.distribution.distribution() is None
    callback = RunlensKerasCallback(tmp_path / "keras.jsonl", collection="c", task="t")
    callback.set_model(keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)]))
    callback.on_train_begin()
    callback.on_train_batch_begin(0)
    callback.on_train_batch_end(0)
    callback.on_train_end()
    lines = events(tmp_path / "keras.jsonl")
    assert not any({"rank", "world_size", "collective_sections"} & set(event) for event in lines)


# -- the marts over the real trainings: the planted straggler and the others' lost time ------------


@pytest.fixture(scope="module")
def writer_marts(writer_ddp, tmp_path_factory):
    yield from built_marts(writer_ddp, tmp_path_factory)


@pytest.fixture(scope="module")
def lightning_marts(lightning_ddp, tmp_path_factory):
    yield from built_marts(lightning_ddp, tmp_path_factory)


def built_marts(trained: Trained, tmp_path_factory):
    database = tmp_path_factory.mktemp(trained.run_id + "-db") / DATABASE
    build(PROJECT, trained.raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    yield connection
    connection.close()


def rank_figures(marts, run_id: str) -> dict[int, tuple]:
    return {
        rank: figures
        for rank, *figures in marts.execute(
            "select rank, arrival_wait_seconds, busy_gap_seconds, lost_waiting_seconds, lost_basis "
            "from main.fct_run_ranks where run_id = ? order by rank",
            [run_id],
        ).fetchall()
    }


def distributed_run(marts, run_id: str) -> tuple:
    return marts.execute(
        "select world_size, ranks_seen, straggling_rank, lost_basis, lost_to_slowest_seconds, stopped_ranks "
        "from main.fct_run_rank_waiting where run_id = ?",
        [run_id],
    ).fetchone()


def test_the_marts_name_the_slow_rank_of_the_writer_loop_by_its_late_arrivals(writer_ddp, writer_marts):
    """Markers before the collective: each fast rank waits at every step for the slow rank's extra
    work, so its arrival wait is the planted total (20 x 0.05 s = 1 s) within 10%, and equals what
    the test's own record of the arrivals gives (the sum over steps of the last arrival less its own)."""
    world_size, ranks_seen, straggling, basis, lost, stopped = distributed_run(writer_marts, WRITER_RUN_ID)
    assert (world_size, ranks_seen, straggling, stopped) == (WORLD_SIZE, WORLD_SIZE, SLOW_RANK, 0)
    assert lost == pytest.approx(PLANTED_SECONDS, rel=0.10)
    recorded = recorded_arrival_waits(writer_ddp.record)
    for rank, (arrival_wait, _, lost_waiting, _) in rank_figures(writer_marts, WRITER_RUN_ID).items():
        if rank == SLOW_RANK:
            assert lost_waiting < 0.10 * PLANTED_SECONDS
            continue
        assert lost_waiting == pytest.approx(PLANTED_SECONDS, rel=0.10), rank
        # the marker is written right after the record's arrival: the two agree to a few ms per step
        assert arrival_wait == pytest.approx(recorded[rank], abs=0.002 * STEPS), rank


def test_the_marts_name_the_slow_rank_of_lightning_ddp_by_its_busy_time(lightning_ddp, lightning_marts):
    """Lightning's markers come after a collective, so the ranks arrive together and only busy time
    (sections less the collective ones) shows the slow rank: each fast rank's lost time is the
    planted total within 10%, and the busiest rank's record of its local work less the fast rank's."""
    world_size, ranks_seen, straggling, basis, lost, stopped = distributed_run(lightning_marts, LIGHTNING_RUN_ID)
    assert (world_size, ranks_seen, straggling, basis, stopped) == (
        WORLD_SIZE,
        WORLD_SIZE,
        SLOW_RANK,
        "busy_time",
        0,
    )
    assert lost == pytest.approx(PLANTED_SECONDS, rel=0.10)
    local = {rank: lightning_ddp.recorded_local_seconds(rank) for rank in range(WORLD_SIZE)}
    for rank, (_, busy_gap, lost_waiting, rank_basis) in rank_figures(lightning_marts, LIGHTNING_RUN_ID).items():
        if rank == SLOW_RANK:
            assert lost_waiting < 0.10 * PLANTED_SECONDS
            continue
        assert (rank_basis, lost_waiting) == ("busy_time", pytest.approx(PLANTED_SECONDS, rel=0.10)), rank
        assert busy_gap == pytest.approx(local[SLOW_RANK] - local[rank], rel=0.10), rank


def recorded_arrival_waits(record: dict[int, list[dict]]) -> dict[int, float]:
    """Per rank, the seconds from its arrival at each step's collective to the last rank's, summed,
    from the test's own record."""
    last: dict[int, float] = {}
    for steps in record.values():
        for step in steps:
            last[step["step"]] = max(last.get(step["step"], step["arrived_at"]), step["arrived_at"])
    return {rank: sum(last[step["step"]] - step["arrived_at"] for step in steps) for rank, steps in record.items()}
