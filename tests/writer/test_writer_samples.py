"""The writer's utilization samples (issue 45): `sample()` writes the contract's `sample` line,
refuses a mistake in one line without writing, and runlens reads what it wrote; `start_sampler()`
does nothing without nvidia-ml-py (these machines have no GPU and no NVML).

End to end, with the writer's clocks moved by hand: run_start at 0 s, GPU 0 sampled at 1, 16, 31
and 46 s (30, 60, 90, 60 %), checkpoint at 60 s. Each sample holds until the next (15 s), the last
until the interval ends at 60 s (14 s): the interval's mean is (30*15 + 60*15 + 90*15 + 60*14) / 59
= 60 %, its coverage 59/60; one GPU (from the samples), 1/60 GPU-hours, idle 1/60 * 0.4 = 1/150.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import duckdb
import jsonschema
import pytest
import runlens_writer
from runlens_writer import RunLog, RunLogError

from tests.support.pipeline import DATABASE, PROJECT, REPO, build

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text(encoding="utf-8"))
START_SECONDS = 1_735_689_600  # 2025-01-01T00:00:00Z


class FakeClocks:
    def __init__(self) -> None:
        self.seconds = 0.0

    def monotonic_ns(self) -> int:
        return round(self.seconds * 1e9)

    def time_ns(self) -> int:
        return START_SECONDS * 10**9 + round(self.seconds * 1e9)


@pytest.fixture
def clocks(monkeypatch) -> FakeClocks:
    fake = FakeClocks()
    monkeypatch.setattr(runlens_writer, "_monotonic_ns", fake.monotonic_ns)
    monkeypatch.setattr(runlens_writer, "_time_ns", fake.time_ns)
    for name in runlens_writer.RANK_VARIABLES + runlens_writer.WORLD_SIZE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return fake


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_sample_is_written_exactly_so_and_fits_the_schema(tmp_path, clocks):
    log = RunLog(tmp_path / "run.jsonl")
    log.run_start("c", "t")
    clocks.seconds = 15.0
    log.sample({"gpu_utilization": 82, "gpu_memory_used": 3.5}, gpu=1, host="node-3", units={"gpu_memory_used": "GiB"})
    log.sample({"cpu_utilization": 12.5})
    log.close()
    first, second = lines(tmp_path / "run.jsonl")[1:]
    assert first == {
        "run_id": "run",
        "event": "sample",
        "ts": "2025-01-01T00:00:15.000000Z",
        "gpu": 1,
        "host": "node-3",
        "measurements": {"gpu_utilization": 82, "gpu_memory_used": 3.5},
        "units": {"gpu_memory_used": "GiB"},
    }
    assert second == {
        "run_id": "run",
        "event": "sample",
        "ts": "2025-01-01T00:00:15.000001Z",  # strictly after the first
        "measurements": {"cpu_utilization": 12.5},
    }
    for event in (first, second):
        jsonschema.validate(event, SCHEMA)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda log: log.sample({"gpu_utilization": 50}), ValueError, "a GPU measurement: say which GPU with gpu="),
        (lambda log: log.sample({"cpu_utilization": 50}, gpu=0), ValueError, "a host measurement: leave gpu= out"),
        (lambda log: log.sample({"gpu_power": 5}, gpu=0, units={"gpu_power": "hp"}), ValueError, "use one of W, mW"),
        (lambda log: log.sample({"gpu_utilization": -1}, gpu=0), ValueError, "give a finite number >= 0"),
        (lambda log: log.sample({"gpu_utilization": float("nan")}, gpu=0), ValueError, "finite number"),
        (lambda log: log.sample({}, gpu=0), ValueError, "non-empty dict"),
        (lambda log: log.sample({"gpu_utilization": 1}, gpu=-2), ValueError, "gpu must be >= 0"),
    ],
)
def test_a_mistaken_sample_is_a_clear_error_and_writes_nothing(tmp_path, clocks, call, error, message):
    log = RunLog(tmp_path / "run.jsonl")
    log.run_start("c", "t")
    with pytest.raises(error, match=message):
        call(log)
    log.close()
    assert [event["event"] for event in lines(tmp_path / "run.jsonl")] == ["run_start"]


def test_a_sample_outside_an_active_run_is_an_error(tmp_path, clocks):
    with pytest.raises(RunLogError, match="sample"):
        RunLog(tmp_path / "run.jsonl").sample({"cpu_utilization": 1})


def test_the_sampler_does_nothing_without_nvidia_ml_py(tmp_path, clocks):
    assert importlib.util.find_spec("pynvml") is None  # no NVML here: the sampler's other branch needs a GPU
    log = RunLog(tmp_path / "run.jsonl")
    log.run_start("c", "t")
    assert log.start_sampler(every=0.01) is None
    log.run_end()
    assert [event["event"] for event in lines(tmp_path / "run.jsonl")] == ["run_start", "profile", "run_end"]


def test_runlens_reads_the_writers_samples(tmp_path, clocks):
    raw = tmp_path / "raw"
    raw.mkdir()
    log = RunLog(raw / "sampled.jsonl")
    log.run_start("writer-samples", "t")
    for at, value in ((1, 30), (16, 60), (31, 90), (46, 60)):
        clocks.seconds = at
        log.sample({"gpu_utilization": value}, gpu=0)
    clocks.seconds = 60
    log.checkpoint(1)
    log.run_end()
    build(PROJECT, raw, tmp_path / "db" / DATABASE)
    with duckdb.connect(str(tmp_path / "db" / DATABASE), read_only=True) as marts:
        row = marts.execute(
            "select gpus, gpus_source, gpu_samples, is_measured, sample_coverage, mean_gpu_utilization_pct,"
            " gpu_hours, idle_gpu_hours from fct_run_interval_utilization where interval_index = 1"
        ).fetchone()
    assert row == pytest.approx((1, "samples", 4, True, 59 / 60, 60, 1 / 60, 1 / 150))
