"""The writer's own promises (writer/runlens_writer.py, issue 12), with its clocks replaced.

- the exact lines of every event, valid under the input contract's JSON Schema, one os.write
  each, fsynced at run_start, checkpoint and run_end;
- sections: the most recently opened open section owns the time (nested: the innermost), so the
  sections never add up to more than the wall time (also checked on random open/close sequences
  against a brute-force owner of every instant);
- resume: a new run_start in the same file, with the profile carried on; a truncated last line
  left by a crash stays a line of its own;
- failure: an exception leaving the run's context writes a failed run_end and is re-raised;
- ranks: only global rank 0 writes, or every rank its own file of the same run; rank and world size
  on every line of a run of more than one rank, on none of a single process; collective sections;
- config conversion, and a clear error for every misuse, without a line written.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import types
from pathlib import Path

import hypothesis.strategies as st
import jsonschema
import numpy as np
import pytest
import runlens_writer
from hypothesis import given, settings
from runlens_writer import RunLog, RunLogError, json_config, start_run

from tests.support.pipeline import REPO

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text(encoding="utf-8"))
START_SECONDS = 1_735_689_600  # 2025-01-01T00:00:00Z


class FakeClocks:
    """Both of the writer's clocks, moved by hand."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def advance(self, seconds: float) -> None:
        self.seconds += seconds

    def monotonic_ns(self) -> int:
        return round(self.seconds * 1e9)

    def time_ns(self) -> int:
        return START_SECONDS * 10**9 + round(self.seconds * 1e9)


@pytest.fixture(autouse=True)
def no_rank_environment(monkeypatch):
    for name in runlens_writer.RANK_VARIABLES + runlens_writer.WORLD_SIZE_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def clocks(monkeypatch) -> FakeClocks:
    fake = FakeClocks()
    monkeypatch.setattr(runlens_writer, "_monotonic_ns", fake.monotonic_ns)
    monkeypatch.setattr(runlens_writer, "_time_ns", fake.time_ns)
    return fake


def events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def profiles(path: Path) -> list[dict]:
    return [event for event in events(path) if event["event"] == "profile"]


# -- the lines -----------------------------------------------------------------------------------


def test_every_event_is_written_exactly_so(tmp_path, clocks):
    path = tmp_path / "run-1.jsonl"
    config = {"lr": 0.001, "optimizer": {"name": "adamw", "betas": (0.9, 0.999)}, "note": "ünï"}
    with start_run(path, collection="sweep-3", task="cifar10", config=config) as log:
        clocks.advance(1.0)
        with log.section("train_step"):
            clocks.advance(2.0)
        log.checkpoint(100)
        clocks.advance(0.5)
        log.epoch_end(epoch=0, step=100)
        clocks.advance(0.25)
    assert path.read_text(encoding="utf-8") == (
        '{"run_id":"run-1","event":"run_start","ts":"2025-01-01T00:00:00.000000Z","collection":"sweep-3",'
        '"task":"cifar10","config":{"lr":0.001,"optimizer":{"name":"adamw","betas":[0.9,0.999]},"note":"ünï"}}\n'
        '{"run_id":"run-1","event":"checkpoint","ts":"2025-01-01T00:00:03.000000Z","step":100}\n'
        '{"run_id":"run-1","event":"profile","ts":"2025-01-01T00:00:03.000001Z","wall_seconds":3.0,'
        '"sections":{"train_step":2.0},"final":false}\n'
        '{"run_id":"run-1","event":"epoch_end","ts":"2025-01-01T00:00:03.500000Z","epoch":0,"step":100}\n'
        '{"run_id":"run-1","event":"profile","ts":"2025-01-01T00:00:03.750000Z","wall_seconds":3.75,'
        '"sections":{"train_step":2.0},"final":true}\n'
        '{"run_id":"run-1","event":"run_end","ts":"2025-01-01T00:00:03.750001Z","status":"completed"}\n'
    )
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for event in events(path):
        validator.validate(event)


def test_each_line_is_one_write_and_markers_are_fsynced(tmp_path, monkeypatch):
    writes, fsyncs = [], []
    real_write, real_fsync = os.write, os.fsync
    monkeypatch.setattr(os, "write", lambda fd, data: writes.append(bytes(data)) or real_write(fd, data))
    monkeypatch.setattr(os, "fsync", lambda fd: fsyncs.append(len(writes)) or real_fsync(fd))
    with start_run(tmp_path / "run.jsonl", collection="c", task="t", run_id="explicit") as log:
        log.epoch_end(epoch=0)
        log.checkpoint(1)
        log.profile()
    lines = (tmp_path / "run.jsonl").read_bytes().splitlines(keepends=True)
    assert writes == lines and all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    kinds = [json.loads(line)["event"] for line in lines]
    assert kinds == ["run_start", "epoch_end", "checkpoint", "profile", "profile", "profile", "run_end"]
    assert fsyncs == [1, 4, 7]  # after run_start, after the checkpoint's profile, after run_end
    assert {json.loads(line)["run_id"] for line in lines} == {"explicit"}


def test_timestamps_are_utc_microseconds_and_strictly_increasing(tmp_path, clocks):
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        for step in range(3):
            log.checkpoint(step)  # the clock does not move: each line still gets its own microsecond
    stamps = [event["ts"] for event in events(tmp_path / "run.jsonl")]
    assert stamps == [f"2025-01-01T00:00:00.{index:06d}Z" for index in range(len(stamps))]


# -- sections ------------------------------------------------------------------------------------


def test_the_innermost_open_section_owns_the_time_and_the_rest_is_unattributed(tmp_path, clocks):
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        with log.section("eval"):
            clocks.advance(1)
            with log.section("checkpoint_save"):
                clocks.advance(2)
            clocks.advance(3)
        clocks.advance(4)
    final = profiles(tmp_path / "run.jsonl")[-1]
    assert final["sections"] == {"checkpoint_save": 2.0, "eval": 4.0}
    assert final["wall_seconds"] == 10.0  # 4 s in no section: runlens' `unattributed`


def test_overlapping_sections_the_latest_opened_owns_the_time(tmp_path, clocks):
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        first = log.open_section("a")
        clocks.advance(1)
        second = log.open_section("b")
        clocks.advance(2)
        first.close()  # not the owner: b goes on
        clocks.advance(3)
        second.close()
        second.close()  # again: no effect
        third = log.open_section("c")
        clocks.advance(1)
        fourth = log.open_section("d")
        clocks.advance(1)
        fourth.close()  # c owns the time again
        clocks.advance(2)
        third.close()
    assert profiles(tmp_path / "run.jsonl")[-1]["sections"] == {"a": 1.0, "b": 5.0, "c": 3.0, "d": 1.0}


def test_a_section_inside_itself_counts_once(tmp_path, clocks):
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        with log.section("eval"):
            clocks.advance(1)
            with log.section("eval"):
                clocks.advance(2)
    assert profiles(tmp_path / "run.jsonl")[-1]["sections"] == {"eval": 3.0}


def test_a_section_open_at_run_end_stops_there(tmp_path, clocks):
    log = start_run(tmp_path / "run.jsonl", collection="c", task="t")
    section = log.open_section("train_step")
    clocks.advance(2)
    log.run_end()
    clocks.advance(5)
    section.close()
    assert profiles(tmp_path / "run.jsonl")[-1] == {**profiles(tmp_path / "run.jsonl")[-1], "wall_seconds": 2.0}
    assert profiles(tmp_path / "run.jsonl")[-1]["sections"] == {"train_step": 2.0}


def test_timed_iteration_counts_each_fetch_as_data_loading(tmp_path, clocks):
    def batches():
        for batch in range(3):
            clocks.advance(0.5)  # loading
            yield batch

    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        for _ in log.timed(batches()):
            with log.section("train_step"):
                clocks.advance(1)
    assert profiles(tmp_path / "run.jsonl")[-1]["sections"] == {"data_loading": 1.5, "train_step": 3.0}


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.sampled_from("abc")),
        st.tuples(st.just("close"), st.integers(0, 20)),
        st.tuples(st.just("wait"), st.integers(1, 1000)),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(operations=OPERATIONS)
def test_sections_follow_the_rule_on_any_sequence_and_never_exceed_wall_time(tmp_path_factory, operations):
    fake = FakeClocks()
    real = runlens_writer._monotonic_ns, runlens_writer._time_ns
    runlens_writer._monotonic_ns, runlens_writer._time_ns = fake.monotonic_ns, fake.time_ns
    try:
        path = tmp_path_factory.mktemp("sections") / "run.jsonl"
        expected: dict[str, int] = {}
        with start_run(path, collection="c", task="t") as log:
            handles, open_names = [], []  # brute force: the owner is the last opened handle still open
            for kind, value in operations:
                if kind == "open":
                    handles.append(log.open_section(value))
                    expected.setdefault(value, 0)  # an opened section is in the profile, if only with 0 s
                    open_names.append(len(handles) - 1)
                elif kind == "close" and handles:
                    index = value % len(handles)
                    handles[index].close()
                    if index in open_names:
                        open_names.remove(index)
                elif kind == "wait":
                    if open_names:
                        owner = handles[open_names[-1]].name
                        expected[owner] = expected.get(owner, 0) + value
                    fake.advance(value / 1000)
        final = profiles(path)[-1]
    finally:
        runlens_writer._monotonic_ns, runlens_writer._time_ns = real
    assert final["sections"] == {name: milliseconds / 1000 for name, milliseconds in expected.items()}
    # in whole microseconds, as the writer rounds them (adding the floats would add their own error)
    assert sum(round(seconds * 1e6) for seconds in final["sections"].values()) <= round(final["wall_seconds"] * 1e6)


def test_sections_round_down_and_wall_time_up_so_their_sum_never_exceeds_it(tmp_path, clocks):
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        for name in "abcdefghij":
            with log.section(name):
                clocks.advance(0.0000015)  # 1.5 microseconds each
    final = profiles(tmp_path / "run.jsonl")[-1]
    assert set(final["sections"].values()) == {0.000001} and final["wall_seconds"] == 0.000015


# -- resume and failure --------------------------------------------------------------------------


def test_a_resumed_run_writes_a_new_run_start_and_carries_its_profile_on(tmp_path, clocks):
    path = tmp_path / "run.jsonl"
    first = start_run(path, collection="c", task="t")
    with first.section("train_step"):
        clocks.advance(10)
    first.checkpoint(100)
    clocks.advance(3)  # work after the last checkpoint, lost in the crash
    first.close()  # the process dies: no run_end
    clocks.advance(60)  # downtime
    with start_run(path, collection="c", task="t") as second:
        with second.section("train_step"):
            clocks.advance(5)
        second.checkpoint(150)
    kinds = [event["event"] for event in events(path)]
    assert kinds == ["run_start", "checkpoint", "profile", "run_start", "checkpoint", "profile", "profile", "run_end"]
    final = profiles(path)[-1]
    assert final == {**final, "wall_seconds": 15.0, "sections": {"train_step": 15.0}}


def test_train_start_is_written_once_a_session_with_the_step_training_starts_from(tmp_path, clocks):
    path = tmp_path / "run.jsonl"
    first = start_run(path, collection="c", task="t")
    clocks.advance(4)  # set-up
    first.train_start(step=0)
    clocks.advance(10)
    first.checkpoint(100)
    first.close()  # the process dies
    clocks.advance(60)
    with start_run(path, collection="c", task="t") as second:
        clocks.advance(2)  # set-up again, the checkpoint restored
        second.train_start(step=100)
        with pytest.raises(RunLogError, match=r"train_start\(\) twice in one session of run 'run'"):
            second.train_start(step=100)
    lines = [(event["event"], event["ts"][11:19], event.get("step")) for event in events(path)]
    assert lines[:2] == [("run_start", "00:00:00", None), ("train_start", "00:00:04", 0)]
    assert lines[4:6] == [("run_start", "00:01:14", None), ("train_start", "00:01:16", 100)]
    assert [kind for kind, _, _ in lines].count("train_start") == 2
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for event in events(path):
        validator.validate(event)


def test_a_profile_is_written_when_a_section_closes_a_minute_after_the_last(tmp_path, clocks):
    """profile_every: the periodic profile marks the run alive between checkpoints (60 s by default)."""
    path = tmp_path / "run.jsonl"
    with start_run(path, collection="c", task="t") as log:
        for _ in range(5):  # sections of 25 s: the ones closing at 50 s, 100 s (>= 60 s apart)
            with log.section("train_step"):
                clocks.advance(25)
        log.checkpoint(5)  # at 125 s, with its profile
        with log.section("train_step"):
            clocks.advance(50)  # 175 s: 50 s after the checkpoint's profile, none due
    written = [(event["ts"][14:19], event["wall_seconds"], event["final"]) for event in profiles(path)]
    assert written == [("01:15", 75.0, False), ("02:05", 125.0, False), ("02:55", 175.0, True)]


@pytest.mark.parametrize(("every", "written"), [(None, 1), (0, 4)])
def test_profile_every_none_writes_no_periodic_profile_and_zero_one_per_section(tmp_path, clocks, every, written):
    path = tmp_path / "run.jsonl"
    with start_run(path, collection="c", task="t", profile_every=every) as log:
        for _ in range(3):
            with log.section("train_step"):
                clocks.advance(100)
    assert len(profiles(path)) == written  # and the final one


@pytest.mark.parametrize("every", [-1, "60", True])
def test_profile_every_must_be_seconds_or_none(tmp_path, every):
    with pytest.raises(ValueError, match="profile_every is .*: give seconds >= 0, or None"):
        RunLog(tmp_path / "run.jsonl", profile_every=every)


def test_a_truncated_last_line_stays_a_line_of_its_own(tmp_path, clocks):
    path = tmp_path / "run.jsonl"
    with start_run(path, collection="c", task="t") as log:
        log.checkpoint(1)
    with path.open("ab") as crashed:
        crashed.write(b'{"run_id":"run","event":"checkp')
    with start_run(path, collection="c", task="t"):
        pass
    lines = path.read_bytes().splitlines()
    first_session = ["run_start", "checkpoint", "profile", "profile", "run_end"]
    assert [json.loads(line)["event"] for line in lines[:5]] == first_session
    assert lines[5] == b'{"run_id":"run","event":"checkp'
    assert [json.loads(line)["event"] for line in lines[6:]] == ["run_start", "profile", "run_end"]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (ZeroDivisionError, "failed: ZeroDivisionError"),
        (KeyboardInterrupt, "failed: KeyboardInterrupt"),
        (SystemExit(1), "failed: SystemExit"),
        (SystemExit(0), "completed"),
    ],
)
def test_an_exception_in_the_run_writes_a_failed_run_end_and_is_re_raised(tmp_path, error, status):
    path = tmp_path / "run.jsonl"
    with pytest.raises(error if isinstance(error, type) else type(error)), RunLog(path) as log:
        log.run_start("c", "t")
        raise error
    assert events(path)[-1] == {**events(path)[-1], "event": "run_end", "status": status}
    assert [event["event"] for event in events(path)][-2] == "profile"


def test_an_exception_before_run_start_writes_nothing(tmp_path):
    with pytest.raises(RuntimeError), RunLog(tmp_path / "run.jsonl"):
        raise RuntimeError("before the run")
    assert not (tmp_path / "run.jsonl").exists()


# -- ranks ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("variable", runlens_writer.RANK_VARIABLES)
def test_only_global_rank_zero_writes(tmp_path, monkeypatch, variable):
    monkeypatch.setenv(variable, "3")
    with start_run(tmp_path / "run.jsonl", collection="c", task="t") as log:
        log.checkpoint(1)
        with pytest.raises(ValueError):
            log.checkpoint(-1)  # the same checks on every rank
    assert log.rank == 3 and not log.is_writing and list(tmp_path.iterdir()) == []


def torch_distributed(monkeypatch, rank: int, world_size: int) -> None:
    """A loaded torch whose process group is initialized, as the writer sees it."""
    distributed = types.SimpleNamespace(
        is_available=lambda: True, is_initialized=lambda: True, get_rank=lambda: rank, get_world_size=lambda: world_size
    )
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(distributed=distributed))


def test_torch_distributed_rank_and_world_size_come_first(monkeypatch):
    torch_distributed(monkeypatch, rank=2, world_size=8)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert runlens_writer.global_rank() == 2 and runlens_writer.global_world_size() == 8


@pytest.mark.parametrize("variable", runlens_writer.WORLD_SIZE_VARIABLES)
def test_the_world_size_comes_from_the_launchers_variables_or_is_unknown(monkeypatch, variable):
    assert runlens_writer.global_world_size() is None
    monkeypatch.setenv(variable, "16")
    assert runlens_writer.global_world_size() == 16


def test_every_rank_writes_its_own_file_of_the_same_run_exactly_so(tmp_path, clocks):
    # Rank 1 of 4 and rank 0 of the same run; each line has rank and world_size right after ts,
    # and only rank 0's run_start has the config. Rank 1: 1 s forward, checkpoint (its arrival),
    # 2 s in backward (collective), 0.5 s in no section: wall 3.5 s.
    for rank in (1, 0):
        with start_run(
            tmp_path / "ddp.jsonl",
            collection="c",
            task="t",
            config={"lr": 0.1},
            per_rank_files=True,
            rank=rank,
            world_size=4,
        ) as log:
            with log.section("forward"):
                clocks.advance(1.0)
            log.checkpoint(1)
            with log.section("backward", collective=True):
                clocks.advance(2.0)
            clocks.advance(0.5)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["ddp.rank0.jsonl", "ddp.rank1.jsonl"]
    assert (tmp_path / "ddp.rank1.jsonl").read_text(encoding="utf-8") == (
        '{"run_id":"ddp","event":"run_start","ts":"2025-01-01T00:00:00.000000Z","rank":1,"world_size":4,'
        '"collection":"c","task":"t"}\n'
        '{"run_id":"ddp","event":"checkpoint","ts":"2025-01-01T00:00:01.000000Z","rank":1,"world_size":4,"step":1}\n'
        '{"run_id":"ddp","event":"profile","ts":"2025-01-01T00:00:01.000001Z","rank":1,"world_size":4,'
        '"wall_seconds":1.0,"sections":{"forward":1.0},"final":false}\n'
        '{"run_id":"ddp","event":"profile","ts":"2025-01-01T00:00:03.500000Z","rank":1,"world_size":4,'
        '"wall_seconds":3.5,"sections":{"backward":2.0,"forward":1.0},"collective_sections":["backward"],'
        '"final":true}\n'
        '{"run_id":"ddp","event":"run_end","ts":"2025-01-01T00:00:03.500001Z","rank":1,"world_size":4,'
        '"status":"completed"}\n'
    )
    rank_zero = events(tmp_path / "ddp.rank0.jsonl")
    assert rank_zero[0] == {
        "run_id": "ddp",
        "event": "run_start",
        "ts": "2025-01-01T00:00:03.500000Z",  # its own RunLog: the clock says 3.5 s
        "rank": 0,
        "world_size": 4,
        "collection": "c",
        "task": "t",
        "config": {"lr": 0.1},
    }
    assert {(event["run_id"], event["rank"], event["world_size"]) for event in rank_zero} == {("ddp", 0, 4)}
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for event in rank_zero + events(tmp_path / "ddp.rank1.jsonl"):
        validator.validate(event)


def test_by_default_only_rank_zero_writes_and_its_lines_carry_the_rank(tmp_path, monkeypatch):
    torch_distributed(monkeypatch, rank=0, world_size=2)
    with start_run(tmp_path / "run.jsonl", collection="c", task="t", config={"a": 1}) as log:
        log.checkpoint(1)
    lines = events(tmp_path / "run.jsonl")
    assert [list(event)[:5] for event in lines] == [["run_id", "event", "ts", "rank", "world_size"]] * len(lines)
    assert {(event["rank"], event["world_size"]) for event in lines} == {(0, 2)} and lines[0]["config"] == {"a": 1}
    torch_distributed(monkeypatch, rank=1, world_size=2)
    with start_run(tmp_path / "other.jsonl", collection="c", task="t") as log:
        log.checkpoint(1)
    assert (log.rank, log.world_size, log.is_writing) == (1, 2, False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run.jsonl"]


@pytest.mark.parametrize("world_size", [None, 1])
def test_a_single_process_writes_its_lines_without_rank(tmp_path, clocks, world_size):
    # world size unknown or 1: the lines are those of a run without ranks, byte for byte
    with start_run(tmp_path / "plain.jsonl", collection="c", task="t", run_id="r") as log:
        with log.section("train_step"):
            clocks.advance(1)
        log.checkpoint(1)
    with start_run(
        tmp_path / "one.jsonl", collection="c", task="t", run_id="r", per_rank_files=True, world_size=world_size
    ) as log:
        with log.section("train_step"):
            clocks.advance(1)
        log.checkpoint(1)
    plain, one = events(tmp_path / "plain.jsonl"), events(tmp_path / "one.rank0.jsonl")
    assert not any("rank" in event or "world_size" in event for event in plain + one)
    assert [{**event, "ts": None} for event in plain] == [{**event, "ts": None} for event in one]


def test_collective_sections_are_listed_once_opened_and_carried_over_a_resume(tmp_path, clocks):
    path = tmp_path / "run.jsonl"
    first = start_run(path, collection="c", task="t")
    with first.section("forward"):
        clocks.advance(1)
    first.checkpoint(1)  # no collective section yet: no key, as in a run without them
    with first.section("barrier", collective=True):
        clocks.advance(2)
    with first.section("all_reduce", collective=True):
        clocks.advance(3)
    first.checkpoint(2)
    first.close()  # the process dies
    with start_run(path, collection="c", task="t") as second:  # a new RunLog: the kinds come from the file
        with pytest.raises(ValueError, match="section 'barrier' was opened with collective=True earlier"):
            second.open_section("barrier")
        with pytest.raises(ValueError, match="section 'forward' was opened with collective=False earlier"):
            second.open_section("forward", collective=True)
        with second.section("forward"):
            clocks.advance(4)
    assert [profile.get("collective_sections") for profile in profiles(path)] == [
        None,
        ["all_reduce", "barrier"],
        ["all_reduce", "barrier"],
    ]
    final = profiles(path)[-1]
    assert list(final) == ["run_id", "event", "ts", "wall_seconds", "sections", "collective_sections", "final"]
    assert final["sections"] == {"all_reduce": 3.0, "barrier": 2.0, "forward": 5.0} and final["wall_seconds"] == 10.0


@pytest.mark.parametrize(
    ("arguments", "environment", "message"),
    [
        ({"rank": 4, "world_size": 4}, {}, "rank 4 is not below the world size 4"),
        ({"rank": 1, "per_rank_files": True}, {}, "rank 1 writes its own file but the world size is unknown"),
        ({}, {"WORLD_SIZE": "four"}, "WORLD_SIZE='four' is not an integer world size"),
        ({}, {"SLURM_NTASKS": "0"}, r"SLURM_NTASKS='0' is not a world size \(>= 1\)"),
    ],
)
def test_a_rank_and_world_size_that_do_not_fit_are_an_error(tmp_path, monkeypatch, arguments, environment, message):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        start_run(tmp_path / "run.jsonl", collection="c", task="t", **arguments)
    assert list(tmp_path.iterdir()) == []


def test_a_rank_that_is_not_a_number_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_PROCID", "zero")
    with pytest.raises(ValueError, match="SLURM_PROCID='zero' is not an integer rank"):
        start_run(tmp_path / "run.jsonl", collection="c", task="t")


# -- config --------------------------------------------------------------------------------------


def test_config_converts_paths_tuples_and_numpy_scalars():
    class TorchLikeScalar:
        ndim = 0

        def item(self):
            return 7

    config = {
        "path": Path("/data/train"),
        "betas": (np.float32(0.5), np.float64(0.25)),
        "steps": np.int64(3),
        "flag": np.bool_(True),
        "count": TorchLikeScalar(),
        "nested": {"deep": {"none": None}},
    }
    assert json_config(config) == {
        "path": "/data/train",
        "betas": [0.5, 0.25],
        "steps": 3,
        "flag": True,
        "count": 7,
        "nested": {"deep": {"none": None}},
    }


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        ({"optimizer": {"betas": [0.9, object()]}}, TypeError, r"config\.optimizer\.betas\[1\] is a builtins\.object"),
        ({"lr": float("nan")}, ValueError, r"config\.lr is nan: strict JSON has no NaN"),
        ({"a b": {"x": float("inf")}}, ValueError, r"config\['a b'\]\.x is inf"),
        ({"weights": np.zeros(3)}, TypeError, r"config\.weights is a numpy\.ndarray"),
        ({1: "one"}, TypeError, r"config has a key 1 \(int\)"),
        ({"name": "bad \udc80"}, ValueError, r"config\.name is not valid Unicode"),
        ({"tags": {"a", "b"}}, TypeError, r"config\.tags is a builtins\.set"),
    ],
)
def test_a_config_value_that_is_not_json_is_refused_and_nothing_is_written(tmp_path, config, error, message):
    log = RunLog(tmp_path / "run.jsonl")
    with pytest.raises(error, match=message):
        log.run_start("c", "t", config)
    assert not (tmp_path / "run.jsonl").exists() and not log.is_active


def test_lenient_config_writes_what_is_not_json_as_text():
    assert json_config({"tags": {"a"}, "lr": float("nan"), 2: Path("x")}, lenient=True) == {
        "tags": "{'a'}",
        "lr": "nan",
        "2": "x",
    }


# -- misuse --------------------------------------------------------------------------------------


def started(tmp_path: Path) -> RunLog:
    return start_run(tmp_path / "run.jsonl", collection="c", task="t")


def ended(tmp_path: Path) -> RunLog:
    log = started(tmp_path)
    log.run_end()
    return log


@pytest.mark.parametrize(
    ("misuse", "error", "message"),
    [
        (lambda tmp: RunLog(tmp / "run.jsonl").checkpoint(1), RunLogError, r"checkpoint\(\) before run_start"),
        (lambda tmp: RunLog(tmp / "run.jsonl").epoch_end(), RunLogError, r"epoch_end\(\) before run_start"),
        (lambda tmp: RunLog(tmp / "run.jsonl").run_end(), RunLogError, r"run_end\(\) before run_start"),
        (lambda tmp: RunLog(tmp / "run.jsonl").open_section("x"), RunLogError, "a section before run_start"),
        (lambda tmp: ended(tmp).checkpoint(1), RunLogError, r"checkpoint\(\) after run_end"),
        (lambda tmp: RunLog(tmp / "run.jsonl").train_start(), RunLogError, r"train_start\(\) before run_start"),
        (lambda tmp: ended(tmp).train_start(), RunLogError, r"train_start\(\) after run_end"),
        (lambda tmp: started(tmp).train_start(step=-3), ValueError, "step must be >= 0, not -3"),
        (lambda tmp: started(tmp).run_start("c", "t"), RunLogError, r"run_start\(\) while run 'run' is active"),
        (lambda tmp: started(tmp).checkpoint(-1), ValueError, "step must be >= 0, not -1"),
        (lambda tmp: started(tmp).checkpoint(2.0), TypeError, "step must be an integer, not float"),
        (lambda tmp: started(tmp).checkpoint(True), TypeError, "step must be an integer, not a bool"),
        (lambda tmp: started(tmp).epoch_end(epoch=-2), ValueError, "epoch must be >= 0"),
        (lambda tmp: started(tmp).run_end(status=""), ValueError, "status must not be empty"),
        (lambda tmp: started(tmp).open_section("unattributed"), ValueError, "runlens' name for the time in no"),
        (lambda tmp: started(tmp).open_section(""), ValueError, "section name must not be empty"),
        (lambda tmp: RunLog(tmp / "run.jsonl").run_start("", "t"), ValueError, "collection must not be empty"),
        (lambda tmp: RunLog(tmp / "run.jsonl").run_start("c", None), TypeError, "task must be a string"),
        (lambda tmp: RunLog(tmp / "run.jsonl").run_start("c", "t", [1]), TypeError, "config must be a dict"),
        (lambda tmp: RunLog(tmp / "run.json"), ValueError, r"runlens reads \*\.jsonl files"),
        (lambda tmp: RunLog(tmp / "_run.jsonl"), ValueError, "runlens skips files whose name starts with"),
        (lambda tmp: RunLog(tmp / "run.jsonl", rank=-1), ValueError, "rank must be >= 0"),
        (lambda tmp: RunLog(tmp / "run.jsonl", world_size=0), ValueError, "world_size must be >= 1"),
    ],
)
def test_misuse_is_a_clear_error_and_leaves_no_broken_line(tmp_path, misuse, error, message):
    with pytest.raises(error, match=message):
        misuse(tmp_path)
    for path in tmp_path.glob("*.jsonl"):
        assert all(isinstance(event, dict) for event in events(path))


def test_a_step_may_be_a_numpy_integer(tmp_path):
    with started(tmp_path) as log:
        log.checkpoint(np.int64(5))
    assert [event["step"] for event in events(tmp_path / "run.jsonl") if event["event"] == "checkpoint"] == [5]


def test_a_run_log_pickles_until_it_is_active(tmp_path):
    copy = pickle.loads(pickle.dumps(RunLog(tmp_path / "run.jsonl")))
    with copy:
        copy.run_start("c", "t")
        with pytest.raises(TypeError, match="an active RunLog cannot be pickled"):
            pickle.dumps(copy)
    assert events(tmp_path / "run.jsonl")[-1]["event"] == "run_end"


def test_the_writer_and_the_callbacks_package_import_only_the_standard_library():
    code = (
        "import sys; before = set(sys.modules); import runlens_writer, runlens_callbacks; "
        "print('\\n'.join(sorted(name for name in set(sys.modules) - before)))"
    )
    imported = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=REPO / "writer", capture_output=True, text=True, check=True
    ).stdout.split()
    foreign = [name for name in imported if name.split(".")[0] not in sys.stdlib_module_names]
    assert foreign == ["runlens_callbacks", "runlens_writer"]
