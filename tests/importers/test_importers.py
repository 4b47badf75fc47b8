"""The log importers (`runlens import`, runlens/commands/import_logs.py) against real tiny trainings and broken input.

The fixtures come from genuinely real trainings (scripts/make_importer_fixtures.py): PyTorch
Lightning with TensorBoardLogger + MLFlowLogger (file store) + ModelCheckpoint every 200 steps, a
Lightning run that fails at step 300, and the Hugging Face Trainer (save_steps = eval_steps = 200)
reporting to TensorBoard and to MLflow's default sqlite store. Each training's own callback
recorded when its checkpoints and epoch ends happened; the imported markers must match it:
steps and epochs exactly, times within 0.1 s when the importer calls them exact and within 1 s
when it flags them approximate. Tests that read TensorBoard files skip without tensorboard (the
importer extra, requirements-importers.txt).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
import jsonschema
import pytest
import yaml

from runlens.cli import main
from runlens.report.markdown import escape_text
from runlens.report.render import render_reports
from tests.support.importer_fixtures import (
    APPROXIMATE,
    EXACT,
    assert_matches_record,
    assert_within,
    imported,
    importer_extra,
    materialize,
    of,
    only_run,
    record,
    rejects,
    seconds,
)
from tests.support.pipeline import DATABASE, PROJECT, REPO, build

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())


@pytest.fixture
def tensorboard():
    return importer_extra("tensorboard")


def run_cli(*args: str | Path) -> int:
    return main(["import", *(str(a) for a in args)])


def test_every_imported_line_is_a_contract_event(tmp_path, tensorboard):
    for name in ("lightning", "lightning_failed", "hf"):
        materialize(name, tmp_path / "in")
    assert run_cli(tmp_path / "in", "--into", tmp_path / "out", "--quiet") == 0
    runs = imported(tmp_path / "out")
    assert len(runs) == 6  # three trainings, each seen through TensorBoard and through MLflow
    for lines in runs.values():
        for line in lines:
            jsonschema.validate(line, SCHEMA)
            assert isinstance(line["is_approximate"], bool)
            assert line["source_format"] in ("tensorboard", "mlflow")
    assert rejects(tmp_path / "out") == []


# --------------------------------------------------------------------------------------------
# PyTorch Lightning


def test_lightning_tensorboard_with_checkpoint_files(tmp_path, tensorboard):
    source = materialize("lightning", tmp_path)
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out", "--format", "tensorboard") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("lightning"), checkpoints_exact=True)
    (start,) = of(lines, "run_start")
    assert start["is_approximate"] and "first TensorBoard event" in start["approximation"]
    assert start["framework"] == "lightning"
    assert start["config"] == {"hidden": 128, "lr": 0.003}  # hparams.yaml
    (end,) = of(lines, "run_end")
    assert end["approximation"].startswith(
        "run_end taken from the last TensorBoard event: work after the last logged scalar is not seen"
    )
    assert all(c["source_path"].endswith(".ckpt") for c in of(lines, "checkpoint"))


def test_lightning_tensorboard_without_checkpoint_files_uses_evaluations(tmp_path, tensorboard):
    source = materialize("lightning", tmp_path, checkpoints=False)
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out", "--format", "tensorboard") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("lightning"), checkpoints_exact=False)
    # Lightning logs the evaluation after step S at step S-1 (the steps are the record's, checked
    # above); every checkpoint says so in one wording, so a page states it once, with its count
    approximations = {checkpoint["approximation"] for checkpoint in of(lines, "checkpoint")}
    assert len(approximations) == 1
    assert "logged one step before the checkpoint's (Lightning logs step N as N - 1" in approximations.pop()


def test_lightning_mlflow_file_store(tmp_path):
    source = materialize("lightning", tmp_path)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--format", "mlflow") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("lightning"), checkpoints_exact=False)
    (start,) = of(lines, "run_start")
    (end,) = of(lines, "run_end")
    assert not start["is_approximate"] and not end["is_approximate"]  # MLflow's start_time and end_time
    assert start["collection"] == "runlens-fixture-lightning"  # the experiment name
    assert (start["task"], start["task_source"]) == ("addmod23", "tag:task")
    assert start["config"] == {"hidden": "128", "lr": "0.003"}  # params
    assert start["source_status"] == "FINISHED" and end["status"] == "completed"
    assert start["run_id"] == f"addmod-{start['source_run_id'][:8]}"
    assert start["source_path"].endswith("meta.yaml")


def test_task_from_a_named_param(tmp_path):
    source = materialize("lightning", tmp_path)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--task-key", "hidden", "--quiet") == 0
    (start,) = of(only_run(tmp_path / "out"), "run_start")
    assert (start["task"], start["task_source"]) == ("128", "param:hidden")


def test_mlflow_task_from_the_dataset_else_the_experiment_never_from_default(tmp_path):
    """Without a `task` tag or param: the `dataset` param names the task, else the experiment
    does, but not MLflow's `Default` experiment (docs/importers.md, "MLflow")."""
    source = materialize("lightning", tmp_path)
    mlruns = source / "mlruns"
    (run,) = [path.parent for path in mlruns.glob("*/*/meta.yaml")]
    (run / "tags" / "task").unlink()
    (run / "params" / "dataset").write_text("addmod-23k")

    def task(case: str) -> tuple[str, str]:
        assert run_cli(mlruns, "--into", tmp_path / case, "--quiet") == 0
        (start,) = of(only_run(tmp_path / case), "run_start")
        return start["task"], start["task_source"]

    assert task("dataset") == ("addmod-23k", "param:dataset")
    (run / "params" / "dataset").unlink()
    assert task("experiment") == ("runlens-fixture-lightning", "experiment")
    experiment = yaml.safe_load((run.parent / "meta.yaml").read_text())
    (run.parent / "meta.yaml").write_text(yaml.safe_dump({**experiment, "name": "Default"}))
    assert task("default") == ("unspecified", "default")


def test_failed_lightning_run_in_mlflow(tmp_path):
    source = materialize("lightning_failed", tmp_path)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("lightning_failed"))
    (start,) = of(lines, "run_start")
    (end,) = of(lines, "run_end")
    assert start["source_status"] == "FAILED"
    assert end["status"] == "failed" and not end["is_approximate"]
    # MLFlowLogger(log_model="all") copied the checkpoint into the artifacts: taken from there
    (checkpoint,) = of(lines, "checkpoint")
    assert "/artifacts/" in checkpoint["source_path"] and checkpoint["is_approximate"]
    assert "artifact copy" in checkpoint["approximation"]


def test_failed_lightning_run_in_tensorboard_is_taken_as_completed_and_says_so(tmp_path, tensorboard):
    """TensorBoard keeps no run status and nothing after the last logged scalar: the documented
    limits, which the approximation must name."""
    source = materialize("lightning_failed", tmp_path)
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    (end,) = of(lines, "run_end")
    rec = record("lightning_failed")
    assert end["status"] == "completed" and "no run status" in end["approximation"]
    assert seconds(end["ts"]) <= rec["run_end"]["ts_after"]  # never later than the real end
    (checkpoint,) = of(lines, "checkpoint")
    assert checkpoint["step"] == 200 and not checkpoint["is_approximate"]
    assert_within(checkpoint, rec["checkpoints"][0]["save_started"], rec["checkpoints"][0]["ts"])
    assert [e["epoch"] for e in of(lines, "epoch_end")] == [1]


# --------------------------------------------------------------------------------------------
# Hugging Face Trainer


def test_hf_tensorboard_with_checkpoint_folders(tmp_path, tensorboard):
    source = materialize("hf", tmp_path)
    assert run_cli(source / "out", "--into", tmp_path / "out", "--format", "tensorboard") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("hf"), checkpoints_exact=True)
    (start,) = of(lines, "run_start")
    assert start["framework"] == "hf"
    assert start["config"]["save_steps"] == 200  # the Trainer's args, from its text summary
    assert all("/checkpoint-" in c["source_path"] for c in of(lines, "checkpoint"))
    assert all("'train/epoch'" in e["approximation"] for e in of(lines, "epoch_end"))
    (end,) = of(lines, "run_end")
    assert "end-of-training summary" in end["approximation"]


def test_hf_tensorboard_without_checkpoint_folders_uses_evaluations(tmp_path, tensorboard):
    source = materialize("hf", tmp_path, checkpoints=False)
    assert run_cli(source / "out", "--into", tmp_path / "out", "--format", "tensorboard") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("hf"), checkpoints_exact=False)


def test_hf_mlflow_sqlite_store(tmp_path):
    source = materialize("hf", tmp_path)
    assert run_cli(source / "mlflow.db", "--into", tmp_path / "out", "--format", "mlflow") == 0
    lines = only_run(tmp_path / "out")
    assert_matches_record(lines, record("hf"), checkpoints_exact=False)
    (start,) = of(lines, "run_start")
    assert not start["is_approximate"] and start["source_status"] == "FINISHED"
    assert start["collection"] == "runlens-fixture-hf"
    assert (start["task"], start["task_source"]) == ("runlens-fixture-hf", "experiment")  # no task tag or param
    assert start["config"]["save_steps"] == "200"
    assert all(line["source_path"].endswith("mlflow.db") for line in lines)


# --------------------------------------------------------------------------------------------
# MLflow statuses


def _edit_run_meta(mlruns: Path, **changes) -> None:
    (meta_path,) = [p for p in mlruns.glob("*/*/meta.yaml")]
    meta = yaml.safe_load(meta_path.read_text())
    meta.update(changes)
    meta_path.write_text(yaml.safe_dump(meta))


def test_running_mlflow_run_is_incomplete_and_last_heard_from(tmp_path):
    source = materialize("lightning", tmp_path)
    _edit_run_meta(source / "mlruns", status=1, end_time=None)  # RUNNING, never ended
    assert run_cli(source / "mlruns", "--into", tmp_path / "out") == 0
    lines = only_run(tmp_path / "out")
    assert of(lines, "run_end") == []
    (start,) = of(lines, "run_start")
    assert start["source_status"] == "RUNNING"
    last_metric = max(
        int(line.split()[0])
        for path in (source / "mlruns").glob("*/*/metrics/*")
        for line in path.read_text().split("\n")
        if line
    )
    assert seconds(start["last_heard_from"]) == pytest.approx(last_metric / 1000, abs=1e-6)


@pytest.mark.parametrize(("status", "expected"), [(5, "failed"), ("KILLED", "failed"), (3, "completed")])
def test_mlflow_status_mapping(tmp_path, status, expected):
    source = materialize("lightning", tmp_path)
    _edit_run_meta(source / "mlruns", status=status)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    (end,) = of(only_run(tmp_path / "out"), "run_end")
    assert end["status"] == expected and not end["is_approximate"]


def test_ended_run_without_end_time_ends_at_its_last_metric_approximately(tmp_path):
    source = materialize("lightning_failed", tmp_path)
    _edit_run_meta(source / "mlruns", end_time=None)
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    (end,) = of(only_run(tmp_path / "out"), "run_end")
    assert end["status"] == "failed" and end["is_approximate"] and "no end_time" in end["approximation"]


# --------------------------------------------------------------------------------------------
# bad input: a named reject with the path, never a crash, never a silent skip


def _event_file(folder: Path) -> Path:
    (path,) = folder.rglob("events.out.tfevents.*")
    return path


def test_unreadable_event_file_is_a_named_reject(tmp_path, tensorboard):
    source = materialize("lightning", tmp_path)
    path = _event_file(source / "lightning_logs")
    path.write_bytes(b"this is not a TensorBoard event file, just text that happens to be here\n" * 3)
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert reject["reason"] == "unreadable_event_file"
    assert reject["source_path"] == str(path) and reject["source_format"] == "tensorboard"
    assert imported(tmp_path / "out") == {}


def test_corrupt_record_is_a_named_reject_and_the_records_before_it_still_count(tmp_path, tensorboard):
    source = materialize("lightning", tmp_path)
    path = _event_file(source / "lightning_logs")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in a record's middle: its checksum fails
    path.write_bytes(bytes(data))
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert reject["reason"] == "corrupt_record" and reject["source_path"] == str(path)
    assert "crc" in reject["detail"] and "good record" in reject["detail"]
    lines = only_run(tmp_path / "out")
    assert of(lines, "run_start") and of(lines, "run_end")


def test_truncated_record_is_a_named_reject(tmp_path, tensorboard):
    source = materialize("lightning", tmp_path)
    path = _event_file(source / "lightning_logs")
    path.write_bytes(path.read_bytes()[:-7])  # the writer was killed mid-record
    assert run_cli(source / "lightning_logs", "--into", tmp_path / "out", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert reject["reason"] == "truncated_record" and reject["source_path"] == str(path)
    assert len(imported(tmp_path / "out")) == 1


def test_run_folder_without_meta_yaml_is_a_named_reject(tmp_path):
    source = materialize("lightning", tmp_path)
    (meta_path,) = (source / "mlruns").glob("*/*/meta.yaml")
    meta_path.unlink()
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert reject["reason"] == "missing_meta_yaml"
    assert reject["source_path"] == str(meta_path.parent) and reject["source_format"] == "mlflow"
    assert imported(tmp_path / "out") == {}


def test_experiment_folder_without_meta_yaml_is_a_named_reject_and_its_runs_still_count(tmp_path):
    source = materialize("lightning", tmp_path)
    (experiment_meta,) = [p for p in (source / "mlruns").glob("*/meta.yaml") if p.parent.name != "0"]
    experiment_meta.unlink()
    assert run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert (reject["reason"], reject["source_path"]) == ("missing_meta_yaml", str(experiment_meta.parent))
    (start,) = of(only_run(tmp_path / "out"), "run_start")
    assert start["collection"] == f"mlflow experiment {experiment_meta.parent.name}"


def test_deleted_mlflow_run_is_a_note_not_a_run(tmp_path, capsys):
    source = materialize("lightning", tmp_path)
    _edit_run_meta(source / "mlruns", lifecycle_stage="deleted")
    assert run_cli(source / "mlruns", "--into", tmp_path / "out") == 1
    assert imported(tmp_path / "out") == {} and rejects(tmp_path / "out") == []
    assert "is deleted: not imported" in capsys.readouterr().err


def test_corrupt_metric_line_and_bad_meta_yaml_are_named_rejects(tmp_path):
    source = materialize("lightning", tmp_path)
    (metric,) = (source / "mlruns").glob("*/*/metrics/val_loss")
    metric.write_text(metric.read_text() + "17960320 not-a-number\n")
    failed = materialize("lightning_failed", tmp_path)
    (meta_path,) = (failed / "mlruns").glob("*/*/meta.yaml")
    meta_path.write_text("run_uuid: [unclosed\n")
    assert run_cli(source / "mlruns", failed / "mlruns", "--into", tmp_path / "out", "--quiet") == 0
    found = {(r["reason"], r["source_path"]) for r in rejects(tmp_path / "out")}
    assert found == {("corrupt_record", str(metric)), ("bad_meta_yaml", str(meta_path))}
    assert len(imported(tmp_path / "out")) == 1  # the good run, without the bad line


def test_corrupt_sqlite_store_is_a_named_reject(tmp_path):
    source = materialize("hf", tmp_path)
    database = source / "mlflow.db"
    connection = sqlite3.connect(database)
    connection.execute("drop table metrics")
    connection.commit()
    connection.close()
    assert run_cli(database, "--into", tmp_path / "out", "--format", "mlflow", "--quiet") == 0
    (reject,) = rejects(tmp_path / "out")
    assert reject["reason"] == "unreadable_sqlite_store" and reject["source_path"] == str(database)


def test_fixing_the_input_and_importing_again_clears_its_rejects(tmp_path):
    source = materialize("lightning", tmp_path)
    (meta_path,) = (source / "mlruns").glob("*/*/meta.yaml")
    kept = meta_path.read_bytes()
    meta_path.unlink()
    run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet")
    assert rejects(tmp_path / "out")
    meta_path.write_bytes(kept)
    run_cli(source / "mlruns", "--into", tmp_path / "out", "--quiet")
    assert rejects(tmp_path / "out") == []
    assert not (tmp_path / "out" / "_import_rejects.jsonl").exists()


# --------------------------------------------------------------------------------------------
# idempotence, progress, summary


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_importing_twice_writes_byte_identical_files(tmp_path, tensorboard):
    for name in ("lightning", "lightning_failed", "hf"):
        materialize(name, tmp_path / "in")
    broken = _event_file(tmp_path / "in" / "lightning_failed" / "lightning_logs")
    broken.write_bytes(broken.read_bytes()[:-7])  # a reject too
    run_cli(tmp_path / "in", "--into", tmp_path / "a", "--quiet")
    first = _snapshot(tmp_path / "a")
    run_cli(tmp_path / "in", "--into", tmp_path / "a", "--quiet")
    run_cli(tmp_path / "in", "--into", tmp_path / "b", "--quiet")
    assert _snapshot(tmp_path / "a") == first
    assert _snapshot(tmp_path / "b") == first
    assert "_import_rejects.jsonl" in first


def test_progress_and_one_line_summary(tmp_path, capsys, tensorboard):
    for name in ("lightning", "hf"):
        materialize(name, tmp_path / "in")
    assert run_cli(tmp_path / "in", "--into", tmp_path / "out") == 0
    err = capsys.readouterr().err.strip().splitlines()
    # 4 logs and the hf fixture's 3 trainer_state.json (checkpoint-200/400/600), whose empty
    # log_history states nothing: a note each
    assert err[-2] == "files 7/7, runs 4"
    assert err[-1].startswith("imported 4 runs (mlflow 2, tensorboard 2) from 7 files into ")
    assert err[-1].endswith("approximate; no rejects; 3 notes above")


def test_nothing_to_import_says_so(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert run_cli(tmp_path / "empty", "--into", tmp_path / "out") == 1
    assert capsys.readouterr().err.startswith(f"runlens: nothing to import found in {tmp_path / 'empty'}: ")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------
# Keras-style TensorBoard logs and text logs (small inputs written here)


def _write_keras_logs(folder: Path, start: float) -> None:
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    for split, offset in (("train", 0.0), ("validation", 0.2)):
        writer = EventFileWriter(str(folder / split))
        for epoch in range(3):
            value = summary_pb2.Summary.Value(tag="epoch_loss", simple_value=1.0 / (epoch + 1))
            writer.add_event(
                event_pb2.Event(
                    wall_time=start + 10 * (epoch + 1) + offset, step=epoch, summary=summary_pb2.Summary(value=[value])
                )
            )
        writer.close()


def test_keras_train_and_validation_folders_are_one_run_with_epoch_ends(tmp_path, tensorboard):
    _write_keras_logs(tmp_path / "logs", 1_700_000_000.0)
    assert run_cli(tmp_path / "logs", "--into", tmp_path / "out", "--quiet") == 0
    lines = only_run(tmp_path / "out")
    epochs = of(lines, "epoch_end")
    assert [e["epoch"] for e in epochs] == [1, 2, 3]
    # the train folder's epoch summaries (the validation folder's, 0.2 s later, are evaluations)
    expected = [1_700_000_010.0, 1_700_000_020.0, 1_700_000_030.0]
    assert [seconds(e["ts"]) for e in epochs] == pytest.approx(expected, abs=1e-3)
    assert all(e["source_path"].startswith(str(tmp_path / "logs" / "train")) for e in epochs)
    assert of(lines, "checkpoint") == []  # Keras' validation is not a checkpoint
    # one wording for every epoch (no epoch index in it): the page's Limits state it once, with
    # its count, not once per epoch
    assert {e["approximation"] for e in epochs} == {
        "epoch_end taken from the per-epoch metrics (epoch_loss), logged under each epoch's index"
    }


def _write_event_file(path: Path, events: list[tuple[float, int, float]], first_tag: str = "train_loss") -> None:
    """An event file of (wall time, step, train_loss) summaries (the first one's tag: first_tag), with
    no header of the time of writing."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        writer = RecordWriter(handle)
        for index, (wall_time, step, loss) in enumerate(events):
            value = summary_pb2.Summary.Value(tag=first_tag if index == 0 else "train_loss", simple_value=loss)
            event = event_pb2.Event(wall_time=wall_time, step=step, summary=summary_pb2.Summary(value=[value]))
            writer.write(event.SerializeToString())


def test_a_tensorboard_training_resumed_into_its_folder_is_a_second_session(tmp_path, tensorboard):
    """The first writer logs steps 10 to 100, one every 10 steps 2 s apart, from 4 s after its
    start; it dies; a second writer starts 100 s after the first ended and logs steps 60 to 150
    (it went back to a checkpoint at step 50). Two sessions; each one's train_start: the first's
    moved back from step 10 (at 4 s) at 0.2 s a step to step 0, 2 s; the second's at its first log."""
    start = 1_700_000_000.0
    folder = tmp_path / "logs" / "version_0"
    first = [(start, 0, 1.0)] + [(start + 2 + 2 * k, 10 * k, 1.0 / k) for k in range(1, 11)]  # steps 10..100 at 4..22 s
    second = [(start + 122, 50, 0.5)] + [(start + 126 + 2 * k, 50 + 10 * k, 0.4) for k in range(1, 11)]
    # Lightning's hyperparameter placeholder at step 0, logged at set-up: no training step
    _write_event_file(folder / "events.out.tfevents.1700000000.host.1.0", first, first_tag="hp_metric")
    _write_event_file(folder / "events.out.tfevents.1700000122.host.2.0", second)
    assert run_cli(tmp_path / "logs", "--into", tmp_path / "out", "--quiet") == 0
    lines = only_run(tmp_path / "out")
    starts = of(lines, "run_start")
    assert [seconds(line["ts"]) - start for line in starts] == pytest.approx([0, 122])
    assert starts[1]["approximation"].startswith("run_start of a resumed session")
    began = of(lines, "train_start")
    assert [seconds(line["ts"]) - start for line in began] == pytest.approx([2, 122], abs=1e-6)
    assert [line["approximation"].split(":")[0] for line in began] == [
        "train_start estimated from the first two logged training steps",
        "train_start taken from the first logged training metric",
    ]
    assert all("step" not in line for line in began)


SAVED = "INFO | fairseq.checkpoint_utils | Saved checkpoint"
PREPARING = "INFO | fairseq.checkpoint_utils | Preparing to save checkpoint for"
FAIRSEQ = "".join(
    line + "\n"
    for line in (
        "2021-05-10 14:08:40 | INFO | fairseq_cli.train | {'task': {'_name': 'translation', 'data': 'x'}}",
        "2021-05-10 14:08:41 | INFO | fairseq.trainer | begin training epoch 1",
        f"2021-05-10 14:10:07 | {PREPARING} epoch 1 @ 379 updates",
        f"2021-05-10 14:10:07 | {SAVED} run/checkpoint_best.pt (epoch 1 @ 379 updates, score 0.01) (writing took 0.2)",
        "2021-05-10 14:10:07 | INFO | fairseq_cli.train | end of epoch 1 (average epoch stats below)",
        f"2021-05-10 14:11:36 | {PREPARING} epoch 2 @ 758 updates",
        f"2021-05-10 14:11:36 | {SAVED} run/checkpoint_last.pt (epoch 2 @ 758 updates, score 0.51) (writing took 1.8)",
        "2021-05-10 14:11:36 | INFO | fairseq_cli.train | end of epoch 2 (average epoch stats below)",
        "2021-05-10 14:11:40 | INFO | fairseq_cli.train | done training in 179.5 seconds",
    )
)


def test_fairseq_text_log_with_a_time_zone(tmp_path):
    log = tmp_path / "sweep" / "baseline_train.log"
    log.parent.mkdir()
    log.write_text(FAIRSEQ)
    assert run_cli(log, "--into", tmp_path / "out", "--format", "text", "--timezone", "Europe/Berlin", "--quiet") == 0
    lines = only_run(tmp_path / "out")
    (start,) = of(lines, "run_start")
    assert (start["run_id"], start["collection"], start["task"]) == ("sweep/baseline_train", "sweep", "translation")
    assert start["ts"] == "2021-05-10T12:08:40.000000Z"  # 14:08:40 in Berlin's summer time
    assert [(c["step"], c["ts"]) for c in of(lines, "checkpoint")] == [
        (379, "2021-05-10T12:10:07.000000Z"),
        (758, "2021-05-10T12:11:36.000000Z"),
    ]
    assert [(e["epoch"], e["step"]) for e in of(lines, "epoch_end")] == [(1, 379), (2, 758)]
    (end,) = of(lines, "run_end")
    assert end["status"] == "completed" and end["ts"] == "2021-05-10T12:11:40.000000Z"
    assert all(line["is_approximate"] and "whole-second" in line["approximation"] for line in lines[1:])
    assert all("UTC" not in (line["approximation"] or "") for line in lines)


def test_text_log_without_time_zone_or_end_line_says_so(tmp_path):
    log = tmp_path / "runs" / "crashed.log"
    log.parent.mkdir()
    log.write_text("".join(FAIRSEQ.splitlines(keepends=True)[:-1]))
    assert run_cli(tmp_path / "runs", "--into", tmp_path / "out", "--quiet") == 0  # auto finds the log
    lines = only_run(tmp_path / "out")
    assert of(lines, "run_end") == []
    (start,) = of(lines, "run_start")
    assert start["last_heard_from"] == "2021-05-10T14:11:36.000000Z"
    assert all("read as UTC" in line["approximation"] for line in lines)


def test_text_patterns_are_configurable(tmp_path):
    log = tmp_path / "plain" / "train.log"
    log.parent.mkdir()
    log.write_text(
        "2024-01-02T03:04:05.250 start\n2024-01-02T03:05:05.500 saved step=100\n2024-01-02T03:06:05.750 finished\n"
    )
    assert (
        run_cli(
            log,
            "--into",
            tmp_path / "out",
            "--format",
            "text",
            "--timezone",
            "+01:00",
            "--text-pattern",
            r"checkpoint=saved step=(?P<step>\d+)",
            "--text-pattern",
            "run_end=finished",
            "--quiet",
        )
        == 0
    )
    lines = only_run(tmp_path / "out")
    assert [(line["event"], line["ts"], line["is_approximate"]) for line in lines] == [
        ("run_start", "2024-01-02T02:04:05.250000Z", True),  # set-up before logging is not seen
        ("checkpoint", "2024-01-02T02:05:05.500000Z", False),  # sub-second times and a known zone
        ("run_end", "2024-01-02T02:06:05.750000Z", False),
    ]


# --------------------------------------------------------------------------------------------
# end to end: imported logs through the real dbt build into fct_runs


def test_imported_runs_reach_fct_runs_with_the_recorded_wall_time(tmp_path, tensorboard):
    lightning = materialize("lightning", tmp_path / "in")
    hf = materialize("hf", tmp_path / "in")
    raw = tmp_path / "raw"
    assert run_cli(lightning / "lightning_logs", hf / "mlflow.db", "--into", raw, "--quiet") == 0
    runs = imported(raw)
    database = tmp_path / "db" / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    try:
        rows = connection.execute(
            "select run_id, status, is_analyzed, wall_seconds, tail_seconds, interval_count"
            " from fct_runs order by run_id"
        ).fetchall()
        provenance = {
            row[0]: row[1:]
            for row in connection.execute(
                "select run_id, source_format, has_approximate_markers, approximate_markers from fct_runs"
            ).fetchall()
        }
        quality = connection.execute(
            "select sum(accepted), sum(rejected), sum(duplicates) from agg_file_data_quality"
        ).fetchone()
    finally:
        connection.close()
    assert len(rows) == 2 and quality == (sum(len(lines) for lines in runs.values()), 0, 0)
    for run_id, status, analyzed, wall, tail, intervals in rows:
        lines = runs[run_id]
        rec = record("hf" if lines[0]["source_format"] == "mlflow" else "lightning")
        (start,) = of(lines, "run_start")
        (end,) = of(lines, "run_end")
        final_epoch = of(lines, "epoch_end")[-1]

        def tolerance(*markers):
            return sum(APPROXIMATE if m["is_approximate"] else EXACT for m in markers)

        assert (status, analyzed) == ("completed", True)
        markers = [line for line in lines if line["event"] in ("run_start", "checkpoint", "epoch_end", "run_end")]
        assert intervals == len(markers) - 1
        # where training began (goodput's start-up): after the run began, before its first epoch ended
        (began,) = of(lines, "train_start")
        assert began["is_approximate"] and began["approximation"].startswith("train_start estimated")
        assert rec["run_start"]["ts"] - APPROXIMATE <= seconds(began["ts"]) <= rec["epoch_ends"][0]["ts"]
        low = rec["run_end"]["ts"] - rec["run_start"]["ts_after"]
        high = rec["run_end"]["ts_after"] - rec["run_start"]["ts"]
        assert low - tolerance(start, end) <= wall <= high + tolerance(start, end), (run_id, wall, low, high)
        recorded_tail = (
            rec["run_end"]["ts"] - rec["epoch_ends"][-1]["ts"],
            rec["run_end"]["ts_after"] - rec["epoch_ends"][-1]["ts"],
        )
        slack = tolerance(end, final_epoch)
        if end["is_approximate"] and end["approximation"].startswith("run_end taken from the last"):
            # an end inferred from the last event leaves the final tail unmeasured (def_final_epoch_end)
            assert tail is None, (run_id, tail)
        else:
            assert recorded_tail[0] - slack <= tail <= recorded_tail[1] + slack, (run_id, tail, recorded_tail)
        assert wall == pytest.approx(seconds(end["ts"]) - seconds(start["ts"]), abs=1e-6)
        approximate = sum(line["is_approximate"] for line in markers)
        assert provenance[run_id] == (lines[0]["source_format"], approximate > 0, approximate)
    # the approximations are named in each profile's Limits
    render_reports(database, tmp_path / "reports")
    pages = "\n".join(page.read_text() for page in (tmp_path / "reports").rglob("profile.md"))
    assert "Some marker times are stand-ins" in pages
    assert escape_text(of(runs[rows[0][0]], "run_start")[0]["approximation"]) in pages


def test_cli_refuses_a_missing_path(tmp_path, capsys):
    assert run_cli(tmp_path / "nope", "--into", tmp_path / "out") == 2
    assert "does not exist" in capsys.readouterr().err


def test_fixtures_are_small_and_hold_no_weights():
    from tests.support.importer_fixtures import FIXTURES

    files = [p for p in FIXTURES.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 2 * 1024 * 1024
    assert not [p for p in files if p.suffix in (".ckpt", ".pt", ".pth", ".bin", ".safetensors")]
    for name in ("lightning", "lightning_failed", "hf"):
        assert (FIXTURES / name / "record.json").is_file() and (FIXTURES / name / "manifest.json").is_file()
