"""Cluster GPU logs (runlens/importers/nvidia_smi.py, dcgm.py) become utilization samples of the run
they belong to (sample_attribution.py, known_runs.py). Real files in the tools' documented formats,
written here, imported beside fairseq-style text logs whose runs they overlap, then built.

The times: every log is the machines' local time at +02:00 (`--timezone +02:00`), the DCGM
timestamps Unix milliseconds. t below is seconds after the run's first line.

job/train.log (run job/train): run_start 10:00:00 (t=0), checkpoint step 100 at 10:02:00 (t=120),
run_end 10:04:00 (t=240). Intervals: run_start -> step_100 [0, 120), step_100 -> run_end [120, 240).
job/node1.nvidia-smi.csv beside it (so it is that run's, host node1): a tick every 30 s, t=0..210,
GPUs 0 and 1; GPU 0 at 90% before t=120 and 30% from it, GPU 1 at 50% then 10%; memory 31005 and
1000 MiB; power 250.5 W on GPU 0, `[Not Supported]` on GPU 1. At t=120 the logger restarts with
another field order, `nounits` and a temperature column. Two malformed rows (a short row, month 13).
    [0, 120): 4 samples per GPU (0, 30, 60, 90; the one at 90 holds to 120): mean (90*120 + 50*120) /
        240 = 70%; GPU-hours 2 GPUs (from the samples) * 120 s / 3600 = 1/15; idle 1/15 * 0.3 = 1/50;
        memory (31005 + 1000) / 2 = 16002.5 MiB; power 250.5 W (GPU 0 alone says it).
    [120, 240): ticks 120..210, the one at 210 holds to 240 (30 s < 60): mean (30 + 10) / 2 = 20%;
        idle 1/15 * 0.8 = 4/75.
    run: GPU-hours 2/15, mean 45%, idle 1/50 + 4/75 = 11/150.

job2/train.log (run job2/train): run_start 12:00:00 (10:00:00Z, t=0), checkpoint step 50 at t=60,
run_end t=120. Imported first; cluster/node2.prom is imported on its own afterwards, into the same
folder: no run of that import holds it, so the runs already there do (its time lies in job2/train's
window only). A scrape every 20 s, t=0..100, GPU 0 of node2: DCGM_FI_DEV_GPU_UTIL 40 until t=60,
70 from it; DCGM_FI_PROF_GR_ENGINE_ACTIVE 0.25 until t=60 only (it wins: 25%); FB_USED 2048 MiB,
POWER_USAGE 300 W; a MIG instance's line (left out) and a line whose value is no number (rejected).
    [0, 60): samples 0, 20, 40 at 25%: GPU-hours 60/3600 = 1/60, idle 1/60 * 0.75 = 1/80.
    [60, 120): samples 60, 80, 100 at 70% (100 holds to 120): idle 1/60 * 0.3 = 1/200.
    run: GPU-hours 1/30, mean 47.5%, idle 1/80 + 1/200 = 7/400.
cluster/late.prom: untimed lines, the file's modification time 2021-11-03T18:00:00Z, after both runs:
no run holds it (samples_without_run).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import duckdb
import pytest
import yaml

from runlens.cli import main
from tests.support.importer_fixtures import imported, materialize, of, rejects
from tests.support.pipeline import DATABASE, PROJECT, build

ZONE = "+02:00"
LOCAL = timedelta(hours=2)
A_START = datetime(2021, 11, 3, 10, 0, 0)  # local, job/train
B_START = datetime(2021, 11, 3, 12, 0, 0)  # local, job2/train


def fairseq_log(start: datetime, step: int, seconds: int) -> str:
    def at(t: int) -> str:
        return (start + timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S")

    return "\n".join(
        [
            f"{at(0)} | INFO | fairseq_cli.train | {{'_name': None, 'task': {{'_name': 'translation'}}}}",
            f"{at(0)} | INFO | fairseq.trainer | begin training epoch 1",
            f"{at(seconds // 2)} | INFO | fairseq.checkpoint_utils | Saved checkpoint ckpt/checkpoint1.pt "
            f"(epoch 1 @ {step} updates, score 5.1)",
            f"{at(seconds)} | INFO | fairseq_cli.train | done training in {seconds}.0 seconds",
            "",
        ]
    )


def smi_time(t: int) -> str:
    return (A_START + timedelta(seconds=t)).strftime("%Y/%m/%d %H:%M:%S.000")


def nvidia_smi_log() -> str:
    """As `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,power.draw --format=csv
    -l 30`, restarted at t=120 as `--query-gpu=timestamp,index,power.draw,utilization.gpu,memory.used,
    temperature.gpu --format=csv,nounits`."""
    lines = ["timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]"]
    for t in (0, 30, 60, 90):
        lines.append(f"{smi_time(t)}, 0, 90 %, 31005 MiB, 250.50 W")
        lines.append(f"{smi_time(t)}, 1, 50 %, 1000 MiB, [Not Supported]")
        if t == 60:
            lines.append(f"{smi_time(75)}, 0, 85 %")  # a short row: rejected
    lines.append("timestamp, index, power.draw [W], utilization.gpu [%], memory.used [MiB], temperature.gpu")
    for t in (120, 150, 180, 210):
        lines.append(f"{smi_time(t)}, 0, 250.50, 30, 31005, 61")
        lines.append(f"{smi_time(t)}, 1, [N/A], 10, 1000, 45")
    lines.append("2021/13/03 10:03:50.000, 0, 250.50, 30, 31005, 61")  # month 13: rejected
    return "\n".join(lines) + "\n"


def unix_ms(local: datetime, t: int) -> int:
    return round(((local - LOCAL + timedelta(seconds=t)).replace(tzinfo=UTC)).timestamp() * 1000)


def dcgm_dump() -> str:
    """Scrapes of DCGM exporter's /metrics every 20 s, each line with its Prometheus timestamp."""
    labels = 'gpu="0",UUID="GPU-5fd4b3f0",device="nvidia0",modelName="NVIDIA A100-SXM4-40GB",Hostname="node2"'
    lines = []
    for t in range(0, 101, 20):
        ms = unix_ms(B_START, t)
        lines += [
            "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).",
            "# TYPE DCGM_FI_DEV_GPU_UTIL gauge",
            f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {40 if t < 60 else 70} {ms}",
            f"DCGM_FI_DEV_FB_USED{{{labels}}} 2048 {ms}",
            f"DCGM_FI_DEV_POWER_USAGE{{{labels}}} 300.000000 {ms}",
            f"DCGM_FI_DEV_SM_CLOCK{{{labels}}} 1410 {ms}",
        ]
        if t < 60:
            lines.append(f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} 0.250000 {ms}")
    lines.append(f'DCGM_FI_DEV_GPU_UTIL{{gpu="1",GPU_I_ID="3",Hostname="node2"}} 99 {unix_ms(B_START, 0)}')
    lines.append(f'DCGM_FI_DEV_FB_USED{{gpu="1",Hostname="node2"}} lots {unix_ms(B_START, 0)}')
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """The logs, imported as a user would: the runs (with the nvidia-smi log beside job/train.log),
    then the DCGM dumps alone into the same folder; then built."""
    root = tmp_path_factory.mktemp("cluster")
    logs = root / "logs"
    (logs / "job").mkdir(parents=True)
    (logs / "job2").mkdir()
    (logs / "cluster").mkdir()
    (logs / "job" / "train.log").write_text(fairseq_log(A_START, 100, 240))
    (logs / "job" / "node1.nvidia-smi.csv").write_text(nvidia_smi_log())
    (logs / "job2" / "train.log").write_text(fairseq_log(B_START, 50, 120))
    (logs / "cluster" / "node2.prom").write_text(dcgm_dump())
    late = logs / "cluster" / "late.prom"
    late.write_text('DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="node3"} 12\n')
    late_at = datetime(2021, 11, 3, 18, 0, tzinfo=UTC).timestamp()
    os.utime(late, (late_at, late_at))
    out = root / "raw"
    options = ["--into", str(out), "--timezone", ZONE, "--into-collection", "sweep", "--quiet"]
    assert main(["import", str(logs / "job"), str(logs / "job2"), *options]) == 0
    assert main(["import", str(logs / "cluster"), *options]) == 0
    build(PROJECT, out, root / "db" / DATABASE)
    return logs, out, root / "db" / DATABASE


def samples(lines: list[dict]) -> list[tuple]:
    return [
        (line["ts"], line.get("host"), line["gpu"], line["measurements"], line.get("units"), line["source_format"])
        for line in of(lines, "sample")
    ]


def test_nvidia_smi_rows_become_samples_of_the_run_beside_them(sweep):
    _, out, _ = sweep
    lines = imported(out)["job/train"]
    got = samples(lines)
    # t=0 local 10:00:00 at +02:00 is 08:00:00Z; 8 ticks of 2 GPUs, the rejected rows left out
    assert len(got) == 16
    assert got[:2] == [
        (
            "2021-11-03T08:00:00.000000Z",
            "node1",
            0,
            {"gpu_utilization": 90, "gpu_memory_used": 31005, "gpu_power": 250.5},
            None,
            "nvidia_smi",
        ),
        (
            "2021-11-03T08:00:00.000000Z",
            "node1",
            1,
            {"gpu_utilization": 50, "gpu_memory_used": 1000},
            None,
            "nvidia_smi",
        ),
    ]
    # after the restart: other order, no units in the cells, temperature ignored, [N/A] absent
    assert got[-2:] == [
        (
            "2021-11-03T08:03:30.000000Z",
            "node1",
            0,
            {"gpu_power": 250.5, "gpu_utilization": 30, "gpu_memory_used": 31005},
            None,
            "nvidia_smi",
        ),
        (
            "2021-11-03T08:03:30.000000Z",
            "node1",
            1,
            {"gpu_utilization": 10, "gpu_memory_used": 1000},
            None,
            "nvidia_smi",
        ),
    ]
    assert all(line["is_approximate"] is False for line in of(lines, "sample"))  # --timezone given


def test_dcgm_scrapes_become_samples_of_the_run_whose_window_holds_them(sweep):
    _, out, _ = sweep
    got = samples(imported(out)["job2/train"])
    # 12:00:00 local is 10:00:00Z; GR_ENGINE_ACTIVE 0.25 wins over GPU_UTIL 40 while it is there
    assert [(ts, gpu, m["gpu_utilization"]) for ts, _, gpu, m, _, _ in got] == [
        ("2021-11-03T10:00:00.000000Z", 0, 25),
        ("2021-11-03T10:00:20.000000Z", 0, 25),
        ("2021-11-03T10:00:40.000000Z", 0, 25),
        ("2021-11-03T10:01:00.000000Z", 0, 70),
        ("2021-11-03T10:01:20.000000Z", 0, 70),
        ("2021-11-03T10:01:40.000000Z", 0, 70),
    ]
    assert {(host, m["gpu_memory_used"], m["gpu_power"], fmt) for _, host, _, m, _, fmt in got} == {
        ("node2", 2048, 300, "dcgm")
    }


def test_bad_rows_and_unattributable_logs_are_listed_with_their_reason(sweep):
    logs, out, _ = sweep
    listed = {(r["source_path"].split("/")[-1], r["reason"], r["detail"].split(":")[0]) for r in rejects(out)}
    # the header is line 1, each tick two lines: the short row after t=60's is line 8; the second
    # header line 11, t=210's rows 18 and 19, month 13 line 20
    assert ("node1.nvidia-smi.csv", "bad_csv_row", "line 8") in listed
    assert ("node1.nvidia-smi.csv", "bad_csv_row", "line 20") in listed
    # 7 lines a scrape while GR_ENGINE_ACTIVE is there (t=0, 20, 40), 6 after (t=60, 80, 100): 39,
    # then the MIG line 40 (left out, no reject) and `lots` on line 41
    assert ("node2.prom", "bad_metric_line", "line 41") in listed
    assert len(listed) == 4
    (late,) = [r for r in rejects(out) if r["source_path"].endswith("late.prom")]
    assert late["reason"] == "samples_without_run"
    assert "2021-11-03T18:00:00.000000Z" in late["detail"] and "--samples-run" in late["detail"]
    assert not any("late.prom" in str(path) for path in out.rglob("*.jsonl") if path.name != "_import_rejects.jsonl")


def intervals(database, run_id: str) -> dict[str, tuple]:
    connection = duckdb.connect(str(database), read_only=True)
    try:
        rows = connection.execute(
            "select label, gpus, gpus_source, is_measured, mean_gpu_utilization_pct, gpu_hours, idle_gpu_hours,"
            " mean_gpu_memory_used_mib, mean_gpu_power_watts"
            " from fct_run_interval_utilization where run_id = ? order by interval_index",
            [run_id],
        ).fetchall()
    finally:
        connection.close()
    return {row[0]: row[1:] for row in rows}


def test_the_marts_hold_the_hand_worked_utilization(sweep):
    _, _, database = sweep
    a = intervals(database, "job/train")
    assert list(a) == ["run_start -> step_100", "step_100 -> run_end"]
    assert a["run_start -> step_100"] == pytest.approx((2, "samples", True, 70, 1 / 15, 1 / 50, 16002.5, 250.5))
    assert a["step_100 -> run_end"] == pytest.approx((2, "samples", True, 20, 1 / 15, 4 / 75, 16002.5, 250.5))
    b = intervals(database, "job2/train")
    assert b["run_start -> step_50"] == pytest.approx((1, "samples", True, 25, 1 / 60, 1 / 80, 2048, 300))
    assert b["step_50 -> run_end"] == pytest.approx((1, "samples", True, 70, 1 / 60, 1 / 200, 2048, 300))
    connection = duckdb.connect(str(database), read_only=True)
    try:
        runs = connection.execute(
            "select run_id, gpu_hours, mean_gpu_utilization_pct, idle_gpu_hours"
            " from fct_run_utilization order by run_id"
        ).fetchall()
    finally:
        connection.close()
    assert runs == [
        ("job/train", pytest.approx(2 / 15), pytest.approx(45), pytest.approx(11 / 150)),
        ("job2/train", pytest.approx(1 / 30), pytest.approx(47.5), pytest.approx(7 / 400)),
    ]


VARIANTS = {
    "csv": [
        "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]",
        "2021/11/03 10:00:30.500, 0, 82 %, 31005 MiB, 250.12 W",
        "2021/11/03 10:00:30.500, 1, 7 %, 5 MiB, [N/A]",
    ],
    "csv,nounits": [
        "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]",
        "2021/11/03 10:00:30.500, 0, 82, 31005, 250.12",
        "2021/11/03 10:00:30.500, 1, 7, 5, [N/A]",
    ],
    "csv,noheader": [
        "2021/11/03 10:00:30.500, 0, 82 %, 31005 MiB, 250.12 W",
        "2021/11/03 10:00:30.500, 1, 7 %, 5 MiB, [N/A]",
    ],
    "csv,noheader,nounits": [
        "2021/11/03 10:00:30.500, 0, 82, 31005, 250.12",
        "2021/11/03 10:00:30.500, 1, 7, 5, [N/A]",
    ],
    "subset, other order": [
        "name, pci.bus_id, power.draw [W], index, uuid, timestamp, memory.total [MiB], utilization.gpu [%], "
        "utilization.memory [%], memory.used [MiB]",
        "NVIDIA A100-SXM4-40GB, 00000000:07:00.0, 250.12 W, 0, GPU-5fd4b3f0, 2021/11/03 10:00:30.500, 40960 MiB, "
        "82 %, 12 %, 31005 MiB",
        "NVIDIA A100-SXM4-40GB, 00000000:0F:00.0, [N/A], 1, GPU-6ad2c1e7, 2021/11/03 10:00:30.500, 40960 MiB, "
        "7 %, 0 %, 5 MiB",
    ],
}


@pytest.mark.parametrize("form", list(VARIANTS))
def test_every_documented_csv_form_reads_the_same(tmp_path, form):
    """With and without units and header, any subset and order of fields; times without --timezone
    are read as UTC and flagged. The run is a text log in the same folder (10:00:00 to 10:04:00)."""
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "train.log").write_text(fairseq_log(A_START, 100, 240))
    (tmp_path / "job" / "gpus.csv").write_text("\n".join(VARIANTS[form]) + "\n")
    assert main(["import", str(tmp_path / "job"), "--into", str(tmp_path / "out"), "--quiet"]) == 0
    got = of(imported(tmp_path / "out")["job/train"], "sample")
    memory_use = {"gpu_memory_utilization": 12} if form == "subset, other order" else {}
    idle_memory = {"gpu_memory_utilization": 0} if form == "subset, other order" else {}
    assert [(line["ts"], line["gpu"], line["measurements"]) for line in got] == [
        (
            "2021-11-03T10:00:30.500000Z",
            0,
            {"gpu_utilization": 82, "gpu_memory_used": 31005, "gpu_power": 250.12, **memory_use},
        ),
        ("2021-11-03T10:00:30.500000Z", 1, {"gpu_utilization": 7, "gpu_memory_used": 5, **idle_memory}),
    ]
    assert {(line["is_approximate"], line["approximation"], line.get("host")) for line in got} == {
        (True, "local times read as UTC: no --timezone given", None)
    }
    assert rejects(tmp_path / "out") == []


def test_a_log_in_several_runs_windows_waits_for_samples_run(tmp_path, capsys):
    """Two text logs in one folder over the same time, a nvidia-smi log beside both: neither its
    folder nor its time chooses, so it is listed; --samples-run names its run; a run id no import
    holds is a mistake said in one line."""
    pair = tmp_path / "pair"
    pair.mkdir()
    (pair / "a.log").write_text(fairseq_log(A_START, 100, 240))
    (pair / "b.log").write_text(fairseq_log(A_START, 100, 240))
    (pair / "gpu.csv").write_text("\n".join(VARIANTS["csv"]) + "\n")
    out = tmp_path / "out"
    assert main(["import", str(pair), "--into", str(out), "--quiet"]) == 0
    (listed,) = rejects(out)
    assert (listed["source_path"], listed["reason"]) == (str(pair / "gpu.csv"), "samples_of_several_runs")
    assert "pair/a, pair/b" in listed["detail"]
    assert not of(imported(out)["pair/a"] + imported(out)["pair/b"], "sample")

    assert main(["import", str(pair), "--into", str(out), "--quiet", "--samples-run", "pair/b"]) == 0
    assert rejects(out) == []
    assert len(of(imported(out)["pair/b"], "sample")) == 2 and not of(imported(out)["pair/a"], "sample")

    capsys.readouterr()
    assert main(["import", str(pair), "--into", str(out), "--quiet", "--samples-run", "pair/c"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.startswith("runlens: --samples-run pair/c: no run of that id was imported or is in --into")
    assert len(of(imported(out)["pair/b"], "sample")) == 2  # nothing was written


def test_a_log_among_an_mlflow_runs_artifacts_is_that_runs(tmp_path):
    """The real Lightning training's fixture: an MLflow run folder and, of the same training, a
    TensorBoard run; a nvidia-smi log among the MLflow run's artifacts, within the training's time,
    lies in both runs' windows, but its folder says it is the MLflow run's."""
    lightning = materialize("lightning", tmp_path)
    metas = [yaml.safe_load(path.read_text()) | {"folder": path.parent} for path in lightning.rglob("meta.yaml")]
    (meta,) = [meta for meta in metas if "run_id" in meta]  # the experiments' meta.yaml name no run
    run_folder = meta["folder"]
    middle = datetime.fromtimestamp((meta["start_time"] + meta["end_time"]) / 2000, UTC)
    (run_folder / "artifacts").mkdir()
    (run_folder / "artifacts" / "node1.nvidia-smi.csv").write_text(
        "timestamp, index, utilization.gpu [%]\n"
        f"{middle:%Y/%m/%d %H:%M:%S}.000, 0, 64 %\n"
        f"{middle + timedelta(seconds=1):%Y/%m/%d %H:%M:%S}.000, 0, 66 %\n"
    )
    out = tmp_path / "out"
    assert main(["import", str(lightning), "--into", str(out), "--timezone", "UTC", "--quiet"]) == 0
    runs = imported(out)
    (mlflow_run,) = [run_id for run_id, lines in runs.items() if lines[0]["source_format"] == "mlflow"]
    assert [(line["gpu"], line["host"], line["measurements"]) for line in of(runs[mlflow_run], "sample")] == [
        (0, "node1", {"gpu_utilization": 64}),
        (0, "node1", {"gpu_utilization": 66}),
    ]
    assert all(not of(lines, "sample") for run_id, lines in runs.items() if run_id != mlflow_run)
    assert not [r for r in rejects(out) if r["reason"] in ("samples_without_run", "samples_of_several_runs")]


def test_a_host_that_differs_keeps_a_log_from_a_run(tmp_path):
    """A run whose own samples name host node1 (runlens' writer wrote them) does not take a log of
    node2 over the same time: that log is listed, the run whose window overlaps it named."""
    out = tmp_path / "raw"
    out.mkdir()
    start = datetime(2021, 11, 3, 8, 0, tzinfo=UTC)
    lines = [
        {"run_id": "r1", "event": "run_start", "ts": f"{start:%Y-%m-%dT%H:%M:%SZ}", "collection": "c", "task": "t"},
        {
            "run_id": "r1",
            "event": "sample",
            "ts": f"{start:%Y-%m-%dT%H:%M:%SZ}",
            "host": "node1",
            "gpu": 0,
            "measurements": {"gpu_utilization": 5},
        },
        {"run_id": "r1", "event": "run_end", "ts": f"{start + timedelta(minutes=10):%Y-%m-%dT%H:%M:%SZ}"},
    ]
    (out / "r1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    logs = tmp_path / "logs"
    logs.mkdir()
    row = f"{start + timedelta(minutes=1):%Y/%m/%d %H:%M:%S}.000, 0, 50 %"
    (logs / "node2.nvidia-smi.csv").write_text(f"timestamp, index, utilization.gpu [%]\n{row}\n")
    (logs / "node1.nvidia-smi.csv").write_text(f"timestamp, index, utilization.gpu [%]\n{row}\n")
    assert main(["import", str(logs), "--into", str(out), "--timezone", "UTC", "--quiet"]) == 0
    (listed,) = rejects(out)
    assert (listed["source_path"], listed["reason"]) == (str(logs / "node2.nvidia-smi.csv"), "samples_without_run")
    assert "on host node2" in listed["detail"]
    # node1's log is r1's: its window holds it and the hosts agree
    assert [line["host"] for line in of(imported(out)["r1"], "sample")] == ["node1", "node1"]
