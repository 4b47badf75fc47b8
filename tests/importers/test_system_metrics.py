"""The trackers' system metrics become utilization samples (issue 45; runlens/importers/system_metrics.py).

W&B: the real offline plain-loop run of tests/fixtures/importers/wandb (x_stats_sampling_interval
0.5 s) holds real `stats` records of the host; their values and times, read back here with W&B's
own protobuf, are the truth of the host samples. GPU stats records are written into that run file
with W&B's record classes, values chosen here, each 5 ms after a system record (W&B writes a tick
as the system's record, then the GPUs'): GPU 0 at 90% until the switch record S, then 10%; GPU 1
at 50% throughout; the environment record names 2 GPUs. Each record stands for its GPU until the
next one, 0.5 s later (def_utilization), so an interval [a, b) after the first GPU record g0 holds
    GPU 0: (90 x |[max(a, g0), min(b, S))| + 10 x |[max(a, S), b)|) / (b - max(a, g0)),  GPU 1: 50,
and the run's mean is the two GPUs' average (both held over the same seconds); GPU-hours are the
interval's seconds x 2 / 3600 and idle GPU-hours GPU-hours x (1 - mean / 100).

MLflow: the real Lightning file store and the real HF sqlite store, with system metrics written
into them under MLflow's names, values and times chosen here (the rows as its stores hold them,
`timestamp value step` lines and rows of the `metrics` table; MLflow's own monitor writing real
runs: tests/importers/test_mlflow_system_monitor.py). GPU 0 at 70% and GPU 1 at 30% every second:
every measured interval's mean is (70 + 30) / 2 = 50%; the run names no GPU count, so its 2 GPUs
come from the samples. The first tick's CPU utilization (step 0) is no measurement of the run
(psutil's first reading in the monitor's thread): left out.

Lightning's DeviceStatsMonitor: a real tiny training on the CPU accelerator with a TensorBoard
logger; the scalars read back with TensorBoard's own EventAccumulator are the truth.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from runlens.cli import main
from runlens.importers.wandb_framing import RecordReader
from scripts.make_wandb_fixtures import PROJECT as WANDB_PROJECT
from scripts.make_wandb_fixtures import RUN_IDS as IDS
from tests.support.importer_fixtures import imported, importer_extra, materialize, of, seconds
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.wandb_frames import frame

GPU_DELAY = 0.005  # s: each GPU record after its system record
SWITCH = 12  # GPU 0 drops from 90% to 10% at the GPU record after the 12th system record


def run_cli(*args) -> int:
    return main(["import", *(str(a) for a in args)])


def samples(lines: list[dict]) -> list[dict]:
    return of(lines, "sample")


def markers(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["event"] != "sample"]


# --------------------------------------------------------------------------------------------
# W&B


def wandb_file(project: Path) -> Path:
    return next(project.glob(f"wandb/*-{IDS['plain']}/run-{IDS['plain']}.wandb"))


def parsed_records(path: Path) -> list:
    from wandb.proto import wandb_internal_pb2

    records, fault = RecordReader.records_of(path)
    assert fault is None
    out = []
    for data in records:
        record = wandb_internal_pb2.Record()
        record.ParseFromString(data)
        out.append(record)
    return out


def write_records(path: Path, records: list) -> None:
    path.write_bytes(frame([record.SerializeToString() for record in records]))


def stats_time(record) -> float:
    return record.stats.timestamp.seconds + record.stats.timestamp.nanos / 1e9


def gpu_values(index: int) -> dict[int, dict[str, str]]:
    """The GPU keys of the index-th GPU record (W&B's names; value_json as W&B writes it)."""
    busy = "90" if index < SWITCH else "10"
    return {
        0: {
            "gpu.0.gpu": busy,
            "gpu.0.memoryAllocatedBytes": "2147483648",  # 2 GiB = 2048 MiB
            "gpu.0.memoryAllocated": "25.0",
            "gpu.0.powerWatts": "250.5",
            "gpu.0.memory": "77",  # memory-controller busy time: not a contract measurement
            "gpu.0.temp": "61",
            "gpu.process.0.gpu": busy,
        },
        1: {"gpu.1.gpu": "50", "gpu.1.memoryAllocatedBytes": "1073741824", "gpu.1.powerWatts": "120"},
    }


def with_gpus(path: Path) -> list[float]:
    """Rewrite the real run file: 2 GPUs in its environment records, and a GPU stats record 5 ms
    after each system stats record; returns the GPU records' times (Unix seconds)."""
    from wandb.proto import wandb_internal_pb2

    kept, times = [], []
    for record in parsed_records(path):
        kind = record.WhichOneof("record_type")
        if kind == "environment":
            record.environment.gpu_count = 2
        kept.append(record)
        if kind == "stats":
            gpu = wandb_internal_pb2.Record()
            at = stats_time(record) + GPU_DELAY
            gpu.stats.stats_type = record.stats.stats_type
            gpu.stats.timestamp.seconds = int(at)
            gpu.stats.timestamp.nanos = round((at - int(at)) * 1e9)
            for values in gpu_values(len(times)).values():
                for key, value in values.items():
                    item = gpu.stats.item.add()
                    item.key, item.value_json = key, value
            times.append(gpu.stats.timestamp.seconds + gpu.stats.timestamp.nanos / 1e9)
            kept.append(gpu)
    write_records(path, kept)
    return times


def test_wandb_stats_records_give_the_hosts_samples_with_their_values_and_times(tmp_path):
    importer_extra("wandb")
    project = materialize("wandb", tmp_path / "in")
    records = [r for r in parsed_records(wandb_file(project)) if r.WhichOneof("record_type") == "stats"]
    assert len(records) == 30  # the real run: a system record every 0.5 s, no GPU on this machine
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    lines = imported(tmp_path / "out")[f"{WANDB_PROJECT}/{IDS['plain']}"]
    got = samples(lines)
    assert len(got) == len(records)
    names = {"cpu": "cpu_utilization", "memory_percent": "host_memory_utilization"}
    names["proc.memory.rssMB"] = "process_memory_used"  # W&B's rssMB is RSS / 1024**2: MiB
    for line, record in zip(got, records, strict=True):
        values = {item.key: float(item.value_json) for item in record.stats.item}
        expected = {names[key]: value for key, value in values.items() if key in names}
        assert line["measurements"] == expected
        assert line["units"]["process_memory_used"] == "MiB" and "gpu" not in line and "host" not in line
        assert abs(seconds(line["ts"]) - stats_time(record)) < 1e-6
        assert not line["is_approximate"] and line["source_path"].endswith(".wandb")
    # the first record has no cpu yet (W&B needs two readings): no cpu_utilization there
    assert "cpu_utilization" not in got[0]["measurements"] and "cpu_utilization" in got[1]["measurements"]


def test_wandb_legacy_keys_of_2021_runs(tmp_path):
    """W&B before wandb-core wrote `memory` (system memory %) for `memory_percent`, and `network`
    as an object; the real records rewritten so."""
    importer_extra("wandb")
    project = materialize("wandb", tmp_path / "in")
    path = wandb_file(project)
    records = parsed_records(path)
    for record in records:
        for item in record.stats.item:
            if item.key == "memory_percent":
                item.key = "memory"
        if record.WhichOneof("record_type") == "stats":
            network = record.stats.item.add()
            network.key, network.value_json = "network", '{"sent": 1024, "recv": 2048}'
    write_records(path, records)
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    got = samples(imported(tmp_path / "out")[f"{WANDB_PROJECT}/{IDS['plain']}"])
    memory = [float(i.value_json) for r in records for i in r.stats.item if i.key == "memory"]
    assert [line["measurements"]["host_memory_utilization"] for line in got] == memory


def test_wandb_gpu_records_are_one_sample_per_gpu_and_the_others_keys_are_left(tmp_path):
    importer_extra("wandb")
    project = materialize("wandb", tmp_path / "in")
    times = with_gpus(wandb_file(project))
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    lines = imported(tmp_path / "out")[f"{WANDB_PROJECT}/{IDS['plain']}"]
    gpu_lines = [line for line in samples(lines) if "gpu" in line]
    assert len(gpu_lines) == 2 * len(times)
    for index, at in enumerate(times):
        zero, one = gpu_lines[2 * index], gpu_lines[2 * index + 1]
        assert (zero["gpu"], one["gpu"]) == (0, 1)
        assert abs(seconds(zero["ts"]) - at) < 1e-6 and zero["ts"] == one["ts"]
        assert zero["measurements"] == {
            "gpu_utilization": 90.0 if index < SWITCH else 10.0,
            "gpu_memory_used": 2147483648.0,
            "gpu_memory_utilization": 25.0,
            "gpu_power": 250.5,
        }
        assert zero["units"] == {
            "gpu_utilization": "%",
            "gpu_memory_used": "B",
            "gpu_memory_utilization": "%",
            "gpu_power": "W",
        }
        assert one["measurements"] == {"gpu_utilization": 50.0, "gpu_memory_used": 1073741824.0, "gpu_power": 120.0}
    (start,) = of(lines, "run_start")
    assert start["resources"] == {"gpus": 2}


# --------------------------------------------------------------------------------------------
# MLflow

CPU = [12.5, 40.0, 87.5]  # system/cpu_utilization_percentage, one a second
MEMORY = [31.0, 32.0, 33.5]  # system/system_memory_usage_percentage


def mlflow_system_metrics(start_ms: int, end_ms: int, node: str | None = None) -> dict[str, list[tuple]]:
    """key -> (timestamp ms, value, step): a monitor tick every second from 0.5 s after the start;
    MLflow logs the metrics of one tick with one timestamp and counts ticks in `step`."""
    prefix = "system/" + (f"{node}/" if node else "")
    metrics: dict[str, list[tuple]] = {}
    for step, at in enumerate(range(start_ms + 500, end_ms, 1000)):
        tick = {
            "cpu_utilization_percentage": CPU[step % 3],
            "system_memory_usage_percentage": MEMORY[step % 3],
            "system_memory_usage_megabytes": 5000.0,  # the host's memory, not the process's: not read
            "network_receive_megabytes": 0.25,
            "gpu_0_utilization_percentage": 70.0,
            "gpu_0_memory_usage_megabytes": 4000.0,  # NVML's used bytes / 1e6: MB
            "gpu_0_memory_usage_percentage": 16.3,
            "gpu_0_power_usage_watts": 210.0,
            "gpu_1_utilization_percentage": 30.0,
        }
        for name, value in tick.items():
            metrics.setdefault(prefix + name, []).append((at, value, step))
    return metrics


def file_store_run(source: Path) -> Path:
    return next(p.parent for p in (source / "mlruns").glob("*/*/meta.yaml"))


def meta_times(run: Path) -> tuple[int, int]:
    import yaml

    meta = yaml.safe_load((run / "meta.yaml").read_text())
    return int(meta["start_time"]), int(meta["end_time"])


def add_to_file_store(run: Path, metrics: dict[str, list[tuple]]) -> None:
    for key, points in metrics.items():
        path = run / "metrics" / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{at} {value} {step}\n" for at, value, step in points))


def check_mlflow_samples(got: list[dict], metrics: dict[str, list[tuple]], host: str | None) -> None:
    prefix = "system/" + (f"{host}/" if host else "")
    ticks = metrics[prefix + "cpu_utilization_percentage"]
    host_lines = [line for line in got if "gpu" not in line]
    assert len(host_lines) == len(ticks) and len(got) == 3 * len(ticks)
    for (at, cpu, step), line in zip(ticks, host_lines, strict=True):
        assert abs(seconds(line["ts"]) * 1000 - at) < 1e-3 and line.get("host") == host
        expected = {"host_memory_utilization": MEMORY[CPU.index(cpu)]}
        if step > 0:  # the first tick's CPU utilization is left out
            expected["cpu_utilization"] = cpu
        assert line["measurements"] == expected
    for line in got:
        if line.get("gpu") == 0:
            assert line["measurements"] == {
                "gpu_utilization": 70.0,
                "gpu_memory_used": 4000.0,
                "gpu_memory_utilization": 16.3,
                "gpu_power": 210.0,
            }
            assert line["units"]["gpu_memory_used"] == "MB"
        elif line.get("gpu") == 1:
            assert line["measurements"] == {"gpu_utilization": 30.0}


def test_mlflow_file_store_system_metrics_are_samples_and_move_no_marker(tmp_path):
    plain = materialize("lightning", tmp_path / "plain")
    assert run_cli(plain / "mlruns", "--into", tmp_path / "plain-out", "--quiet") == 0
    source = materialize("lightning", tmp_path / "in")
    run = file_store_run(source)
    metrics = mlflow_system_metrics(*meta_times(run))
    add_to_file_store(run, metrics)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    (lines,) = imported(tmp_path / "out").values()
    (before,) = imported(tmp_path / "plain-out").values()
    strip = ("source_path",)
    assert [{k: v for k, v in line.items() if k not in strip} for line in markers(lines)] == [
        {k: v for k, v in line.items() if k not in strip} for line in before
    ]
    check_mlflow_samples(samples(lines), metrics, None)


def test_mlflow_sqlite_store_system_metrics_with_a_node_id(tmp_path):
    plain = materialize("hf", tmp_path / "plain")
    assert run_cli(plain / "mlflow.db", "--into", tmp_path / "plain-out", "--quiet") == 0
    source = materialize("hf", tmp_path / "in")
    database = sqlite3.connect(source / "mlflow.db")
    with database:
        run_uuid, start_ms, end_ms = database.execute("select run_uuid, start_time, end_time from runs").fetchone()
        metrics = mlflow_system_metrics(start_ms, end_ms, node="node-7")
        database.executemany(
            "insert into metrics (key, value, timestamp, run_uuid, step, is_nan) values (?, ?, ?, ?, ?, 0)",
            [(key, value, at, run_uuid, step) for key, points in metrics.items() for at, value, step in points],
        )
    database.close()
    assert run_cli(source / "mlflow.db", "--into", tmp_path / "out", "--quiet") == 0
    (lines,) = imported(tmp_path / "out").values()
    (before,) = imported(tmp_path / "plain-out").values()
    assert [{**line, "source_path": None} for line in markers(lines)] == [
        {**line, "source_path": None} for line in before
    ]
    check_mlflow_samples(samples(lines), metrics, "node-7")


# --------------------------------------------------------------------------------------------
# the marts over the W&B run with GPUs and the MLflow run whose GPUs only its samples show


@pytest.fixture(scope="module")
def utilization_marts(tmp_path_factory):
    importer_extra("wandb")
    root = tmp_path_factory.mktemp("system-metrics")
    project = materialize("wandb", root / "wandb")
    times = with_gpus(wandb_file(project))
    lightning = materialize("lightning", root / "mlflow")
    add_to_file_store(file_store_run(lightning), mlflow_system_metrics(*meta_times(file_store_run(lightning))))
    raw = root / "raw"
    assert run_cli(wandb_file(project).parent, lightning / "mlruns", "--into", raw, "--quiet") == 0
    database = root / "db" / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    columns = (
        "run_id, interval_index, epoch(started_at), epoch(ended_at), active_seconds, gpus, gpus_source,"
        " gpu_samples, is_measured, mean_gpu_utilization_pct, mean_gpu_memory_used_mib, mean_gpu_power_watts,"
        " gpu_hours, idle_gpu_hours"
    )
    try:
        rows = connection.execute(
            f"select {columns} from fct_run_interval_utilization order by run_id, interval_index"
        ).fetchall()
    finally:
        connection.close()
    yield times, rows


def overlap(a: float, b: float, low: float, high: float) -> float:
    return max(0.0, min(b, high) - max(a, low))


def test_the_wandb_gpu_samples_give_each_intervals_time_weighted_mean(utilization_marts):
    times, rows = utilization_marts
    first, switch = times[0], times[SWITCH]
    rows = [row for row in rows if row[0] == f"{WANDB_PROJECT}/{IDS['plain']}"]
    measured = 0
    for _, _, a, b, active, gpus, source, gpu_samples, is_measured, mean, memory, power, hours, idle in rows:
        assert (gpus, source) == (2, "resources")  # the environment record's GPU count
        inside = sum(a <= t < b for t in times)
        assert gpu_samples == 2 * inside
        assert active == pytest.approx(b - a, abs=1e-6)
        assert hours == pytest.approx((b - a) * 2 / 3600, abs=1e-9)
        if inside < 2:  # fewer than 2 utilization samples per GPU: not measured
            assert not is_measured and mean is None and idle is None
            continue
        measured += 1
        held = b - max(a, first)
        gpu0 = (90 * overlap(a, b, first, switch) + 10 * overlap(a, b, switch, b)) / held
        expected = (gpu0 + 50) / 2
        # W&B's times are nanoseconds, runlens keeps microseconds: a few 1e-5 points at most
        assert is_measured and mean == pytest.approx(expected, abs=1e-3), (a, b)
        assert memory == pytest.approx((2048 + 1024) / 2) and power == pytest.approx((250.5 + 120) / 2)
        assert idle == pytest.approx(hours * (1 - expected / 100), rel=1e-4)
    # the run's intervals: at least one wholly before the switch, one across it, one after it
    spans = [(row[2], row[3]) for row in rows if row[8]]
    assert measured >= 3 and any(a < switch < b for a, b in spans)


def test_an_mlflow_run_that_names_no_gpu_count_takes_it_from_its_samples(utilization_marts):
    _, rows = utilization_marts
    rows = [row for row in rows if row[0].startswith("addmod-")]
    assert rows
    for row in rows:
        assert (row[5], row[6]) == (2, "samples")  # gpu 0 and gpu 1 of system/gpu_{i}_*
        if row[8]:
            assert row[9] == pytest.approx((70 + 30) / 2)  # held equally long on both GPUs
            assert row[13] == pytest.approx(row[12] * 0.5)
    assert any(row[8] for row in rows)


# --------------------------------------------------------------------------------------------
# Lightning's DeviceStatsMonitor through TensorBoard


def device_stats_training(folder: Path) -> Path:
    """A real tiny Lightning training on the CPU accelerator with DeviceStatsMonitor and a
    TensorBoard logger: 2 epochs of 4 steps, validation each epoch, every step logged."""
    lightning = importer_extra("lightning")
    torch = importer_extra("torch")
    from lightning.pytorch.callbacks import DeviceStatsMonitor
    from lightning.pytorch.loggers import TensorBoardLogger

    class Tiny(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, _):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x), y)
            self.log("train_loss", loss)
            return loss

        def validation_step(self, batch, _):
            x, y = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.layer(x), y))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    trainer = lightning.Trainer(
        accelerator="cpu",
        max_epochs=2,
        logger=TensorBoardLogger(str(folder), name="tiny"),
        callbacks=[DeviceStatsMonitor()],
        log_every_n_steps=1,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Tiny(), loader, loader)
    return folder / "tiny" / "version_0"


def test_lightning_device_stats_monitor_scalars_are_host_samples(tmp_path):
    importer_extra("tensorboard")
    run = device_stats_training(tmp_path / "logs")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(run), size_guidance={"scalars": 0}, purge_orphaned_data=False)
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    hooks = sorted({tag.split("/")[0] for tag in tags if tag.startswith("DeviceStatsMonitor.")})
    assert "DeviceStatsMonitor.on_train_batch_start" in hooks and "DeviceStatsMonitor.on_validation_batch_end" in hooks
    expected = []
    for hook in hooks:
        cpu = accumulator.Scalars(f"{hook}/cpu_percent")
        memory = accumulator.Scalars(f"{hook}/cpu_vm_percent")
        assert len(cpu) == len(memory)
        # one call of the callback logs both, at one step; its sample is at the earlier wall time
        for c, m in zip(cpu, memory, strict=True):
            assert c.step == m.step and abs(c.wall_time - m.wall_time) < 0.05
            measures = {"cpu_utilization": c.value, "host_memory_utilization": m.value}
            expected.append((min(c.wall_time, m.wall_time), measures))
    assert run_cli(tmp_path / "logs", "--into", tmp_path / "out", "--quiet") == 0
    (lines,) = imported(tmp_path / "out").values()
    got = samples(lines)
    expected.sort(key=lambda item: item[0])
    assert len(got) == len(expected)
    for line, (at, measures) in zip(got, expected, strict=True):
        assert abs(seconds(line["ts"]) - at) < 2e-6
        assert line["measurements"] == pytest.approx(measures)
        assert "gpu" not in line and line["source_path"].endswith(tuple(p.name for p in run.glob("events.*")))
    # the scalars are no training metric: the markers come from the training's own scalars alone
    assert not [line for line in markers(lines) if "DeviceStatsMonitor" in (line.get("approximation") or "")]
    assert {e["epoch"] for e in of(lines, "epoch_end")} == {1, 2}
