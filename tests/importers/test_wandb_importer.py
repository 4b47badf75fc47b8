"""The W&B importer (runlens/importers/wandb_*.py) against real offline W&B runs and damaged run files.

The fixture tests/fixtures/importers/wandb/ is one project folder in which real tiny trainings
logged to W&B offline (scripts/make_wandb_fixtures.py): PyTorch Lightning with WandbLogger and
ModelCheckpoint, the HF Trainer with report_to="wandb", a plain loop, a plain loop that crashes,
a plain loop resumed with the same id, a loop logging the keys of Keras' WandbMetricsLogger, and
two runs in one group. Each training recorded its own
moments (records/<name>.json); the imported markers must match them: steps and epochs exactly,
times within 0.1 s when the importer calls them exact and within 1 s when it flags them
approximate. The framing tests need nothing; the others skip without wandb (the importer extra).
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import zlib
from pathlib import Path

import duckdb
import jsonschema
import pytest

from runlens.cli import main
from runlens.importers import runner
from runlens.importers.wandb_framing import BLOCK, RecordReader, checksum
from scripts.make_wandb_fixtures import PROJECT as WANDB_PROJECT
from scripts.make_wandb_fixtures import RUN_IDS as IDS
from tests.support.importer_fixtures import (
    APPROXIMATE,
    EXACT,
    FIXTURES,
    assert_within,
    imported,
    importer_extra,
    materialize,
    of,
    rejects,
    seconds,
)
from tests.support.pipeline import DATABASE, PROJECT, REPO, build
from tests.support.wandb_frames import frame

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())


@pytest.fixture
def wandb():
    return importer_extra("wandb")


def run_cli(*args: str | Path) -> int:
    return main(["import", *(str(a) for a in args)])


def sessions(name: str) -> list[dict]:
    """The training's own record, one entry per W&B session (the resumed run has two)."""
    record = json.loads((FIXTURES / "wandb" / "records" / f"{name}.json").read_text())
    return record.get("sessions", [record])


def run_file(project: Path, name: str, session: int = 0) -> Path:
    return sorted(project.glob(f"wandb/*-{IDS[name]}/run-{IDS[name]}.wandb"))[session]


def lines_of(out: Path, name: str) -> list[dict]:
    return imported(out)[f"{WANDB_PROJECT}/{IDS[name]}"]


def assert_matches_sessions(lines: list[dict], recorded: list[dict], checkpoints_exact: bool | None = None) -> None:
    """Every marker against the training's record: one run_start (exact) and one run_end per
    session, each within its bracket; checkpoint steps and epochs exactly, their times within the
    tolerance the marker's own flag claims."""
    starts, ends = of(lines, "run_start"), of(lines, "run_end")
    assert len(starts) == len(ends) == len(recorded)
    for start, end, session in zip(starts, ends, recorded, strict=True):
        assert not start["is_approximate"], start  # W&B's started_at
        assert_within(start, session["run_start"]["ts"], session["run_start"]["ts_after"])
        assert end["is_approximate"] and end["status"] == session["run_end"]["status"]
        assert_within(end, session["run_end"]["ts"], session["run_end"]["ts_after"])
    checkpoints = {c["step"]: c for s in recorded for c in s["checkpoints"]}
    assert sorted(c["step"] for c in of(lines, "checkpoint")) == sorted(checkpoints)
    for line in of(lines, "checkpoint"):
        if checkpoints_exact is not None:
            assert line["is_approximate"] is not checkpoints_exact, line
        assert_within(line, checkpoints[line["step"]]["save_started"], checkpoints[line["step"]]["ts"])
    epochs = {e["epoch"]: e for s in recorded for e in s["epoch_ends"]}
    assert [e["epoch"] for e in of(lines, "epoch_end")] == sorted(epochs)
    for line in of(lines, "epoch_end"):
        assert line["is_approximate"]
        if "step" in line:
            assert line["step"] == epochs[line["epoch"]]["step"], line
        assert_within(line, epochs[line["epoch"]]["ts"], epochs[line["epoch"]]["ts"])
    # where each session's training began: after its run_start, before its first checkpoint or epoch
    # end, approximate and without a step (which checkpoint a resume restored is left to runlens);
    # none for Keras, which logs once an epoch ends
    train_starts = of(lines, "train_start")
    if starts[0]["framework"] == "keras":
        assert train_starts == []
    else:
        assert len(train_starts) == len(recorded)
        for began, session in zip(train_starts, recorded, strict=True):
            first_marker = min(m["ts"] for m in session["checkpoints"] + session["epoch_ends"])
            assert began["is_approximate"] and "step" not in began, began
            assert_within(began, session["run_start"]["ts"], first_marker)
    for line in lines:
        jsonschema.validate(line, SCHEMA)
        assert line["source_format"] == "wandb" and line["is_approximate"] == (line["approximation"] is not None)
        assert line["source_path"].endswith(".wandb") or line["event"] == "checkpoint"


@pytest.fixture
def project(tmp_path, wandb) -> Path:
    """The fixture project folder with its checkpoint files re-created (empty, with their times)."""
    return materialize("wandb", tmp_path / "in")


@pytest.fixture
def out(project, tmp_path) -> Path:
    """Everything the fixture holds, imported with --format auto from the project folder."""
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    return tmp_path / "out"


# --------------------------------------------------------------------------------------------
# the framing: LevelDB's log format with W&B's header and checksum (no wandb needed)


def read(data: bytes) -> tuple[list[bytes], object]:
    reader = RecordReader(io.BytesIO(data))
    return [payload for _, payload in reader], reader.fault


# Sizes chosen so that a record spans three blocks and a block ends 3 bytes short of a chunk
# header. Worked by hand: the header (7) and record 1 (7 + 100) end at byte 114; record 2's 70000
# bytes are a FIRST chunk of 32768 - 114 - 7 = 32647, a MIDDLE of 32761 filling the second block
# and a LAST of 4592, which ends at 65536 + 7 + 4592 = 70135; record 3, a FULL chunk of 7 + 28159,
# ends at 98301, 3 bytes before the third block's end (zero trailer); record 4 opens the fourth.
PAYLOADS = [b"a" * 100, bytes(range(256)) * 273 + b"x" * 112, b"c" * 28_159, b"d" * 5]
RECORD_ENDS = [114, 70_135, 98_301, 3 * BLOCK + 12]


def test_the_checksum_is_plain_crc32_over_type_and_data():
    # CRC-32's check value: the CRC of the nine bytes "123456789" is 0xCBF43926
    assert checksum(ord("1"), b"23456789") == 0xCBF43926


def test_records_across_blocks_and_a_block_trailer_read_back_whole():
    data = frame(PAYLOADS)
    assert len(PAYLOADS[1]) == 70_000 and len(data) == RECORD_ENDS[-1]
    assert data[RECORD_ENDS[2] : 3 * BLOCK] == bytes(3)
    records, fault = read(data)
    assert records == PAYLOADS and fault is None


def chunk_types(data: bytes) -> list[int]:
    """The type of every chunk, walked by their headers' lengths alone (no checksums, no records)."""
    types, pos = [], 7
    while pos < len(data):
        if BLOCK - pos % BLOCK < 7:
            pos += BLOCK - pos % BLOCK
            continue
        length, kind = struct.unpack_from("<HB", data, pos + 4)
        types.append(kind)
        pos += 7 + length
    return types


def test_a_real_run_file_over_32_kib_reads_to_its_end():
    path = next((FIXTURES / "wandb" / "wandb").glob(f"*-{IDS['plain']}/run-{IDS['plain']}.wandb"))
    data = path.read_bytes()
    types = chunk_types(data)
    assert len(data) > BLOCK and types.count(2) == types.count(4) >= 1  # a record split across blocks
    records, fault = RecordReader.records_of(path)
    assert fault is None and len(records) == types.count(1) + types.count(2)


def test_a_cut_file_keeps_the_records_before_the_cut():
    data = frame(PAYLOADS)
    # in record 2's chunk header, its FIRST chunk's data, its MIDDLE chunk, its LAST chunk's last byte
    for cut in (RECORD_ENDS[0] + 3, RECORD_ENDS[0] + 7 + 500, BLOCK + 10, RECORD_ENDS[1] - 1):
        records, fault = read(data[:cut])
        assert records == PAYLOADS[:1], cut
        assert fault.reason == "truncated_record" and "1 good record(s)" in fault.detail, (cut, fault)
    for count, cut in enumerate(RECORD_ENDS, start=1):  # a cut between records is no fault: a live run's file
        assert read(data[:cut]) == (PAYLOADS[:count], None)
    assert read(data[: RECORD_ENDS[2] + 2]) == (PAYLOADS[:3], None)  # inside the zero trailer


def test_a_flipped_byte_stops_at_its_record():
    data = bytearray(frame(PAYLOADS))
    data[40_000] ^= 0x01  # inside record 2's MIDDLE chunk (bytes 32768 to 65535)
    records, fault = read(bytes(data))
    assert records == PAYLOADS[:1]
    assert fault.reason == "corrupt_record" and "checksum mismatch in the MIDDLE chunk at byte 32768" in fault.detail


def test_a_header_only_file_holds_no_record_and_is_no_fault():
    assert read(frame([])) == ([], None)
    assert len(frame([])) == 7


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b":W&B", "shorter than the 7-byte"),
        (b"PK\x03\x04" + bytes(20), "not a W&B run file"),
        (b":W&B\xe1\xbe\x07", "version 7"),
    ],
)
def test_a_file_that_is_not_a_wandb_run_file_is_unreadable(data, says):
    records, fault = read(data)
    assert records == [] and fault.reason == "unreadable_wandb_file" and says in fault.detail


def test_zero_padding_between_records_skips_to_the_next_block():
    data = bytearray(frame(PAYLOADS[:1]))
    data += bytes(BLOCK - len(data))  # the rest of the first block zeroed, as an mmap'd writer leaves it
    data += frame([b"next block"])[7:]
    records, fault = read(bytes(data))
    assert records == [PAYLOADS[0], b"next block"] and fault is None


def test_chunks_out_of_sequence_are_corrupt():
    last_alone = frame([b"x"])[:7] + struct.pack("<IHB", zlib.crc32(b"\x04x"), 1, 4) + b"x"
    records, fault = read(last_alone)
    assert records == [] and fault.reason == "corrupt_record" and "LAST chunk without a FIRST" in fault.detail


# --------------------------------------------------------------------------------------------
# every run of the fixture against its record


def test_the_project_folder_gives_every_run_once_with_no_rejects(project, tmp_path, capsys):
    assert run_cli(project, "--into", tmp_path / "out") == 0
    runs = imported(tmp_path / "out")
    assert sorted(runs) == sorted(f"{WANDB_PROJECT}/{run_id}" for run_id in IDS.values())
    assert rejects(tmp_path / "out") == []
    err = capsys.readouterr().err.strip().splitlines()
    # nine run files (the resumed run has two sessions), and the HF run's three trainer_state.json
    # (out-hf/checkpoint-200, -400, -600), read as framework reports: they state no eval_runtime and
    # no train_runtime, so each is a note and no section; the records, manifest, requirements.txt,
    # output.log and W&B's debug logs beside them are not taken for logs
    assert err[-1].startswith("imported 8 runs (wandb 8) from 12 files into ")
    assert err[-1].endswith("no rejects; 3 notes above")
    notes = [line for line in err if line.startswith("note: ")]
    assert len(notes) == 3 and all(
        "/out-hf/checkpoint-" in note
        and note.endswith("trainer_state.json: states no eval_runtime and no train_runtime: no section to write")
        for note in notes
    )
    assert (tmp_path / "out" / "wandb" / WANDB_PROJECT / "rlresum1.jsonl").is_file()


@pytest.mark.parametrize("name", ["lightning", "hf"])
def test_framework_runs_with_checkpoint_files_are_exact(out, name):
    lines = lines_of(out, name)
    assert_matches_sessions(lines, sessions(name), checkpoints_exact=True)
    (start,) = of(lines, "run_start")
    assert start["framework"] == name and start["resources"] == {"gpus": 0}  # a CPU machine, W&B says
    where = {"lightning": f"/{WANDB_PROJECT}/rllight1/checkpoints/epoch=", "hf": "/out-hf/checkpoint-"}[name]
    assert all(where in c["source_path"] for c in of(lines, "checkpoint"))


@pytest.mark.parametrize("name", ["lightning", "hf"])
def test_without_checkpoint_files_the_model_artifacts_time_them(tmp_path, name, wandb):
    source = materialize("wandb", tmp_path / "bare", checkpoints=False)
    assert run_cli(source, "--into", tmp_path / "out", "--quiet") == 0
    lines = lines_of(tmp_path / "out", name)
    assert_matches_sessions(lines, sessions(name), checkpoints_exact=False)
    word = "record before it" if name == "hf" else "first record after it"
    assert all(word in c["approximation"] for c in of(lines, "checkpoint"))


def reframe(path: Path, change) -> None:
    """Write a real run file again, its records (parsed with wandb's protobuf: a list of (kind,
    record)) changed by `change`, which returns the records to keep, in order."""
    from wandb.proto import wandb_internal_pb2

    records, fault = RecordReader.records_of(path)
    assert fault is None
    parsed = []
    for data in records:
        record = wandb_internal_pb2.Record()
        record.ParseFromString(data)
        parsed.append((record.WhichOneof("record_type"), record))
    path.write_bytes(frame([record.SerializeToString() for _, record in change(parsed)]))


def test_checkpoints_in_the_training_folder_that_the_environment_record_names(project, tmp_path):
    """A wandb/ folder kept away from the training's own folder (WANDB_DIR): the checkpoints are
    found where the training ran. The run file is the real one, its environment record's `root`
    pointed at this test's copy of the training folder."""

    def root_here(records):
        for kind, record in records:
            if kind == "environment" and record.environment.root:
                record.environment.root = str(project)
        return records

    source = run_file(project, "lightning")
    elsewhere = tmp_path / "wandb_dir" / "wandb" / source.parent.name
    elsewhere.mkdir(parents=True)
    shutil.copy2(source, elsewhere / source.name)
    reframe(elsewhere / source.name, root_here)
    assert run_cli(elsewhere.parent, "--into", tmp_path / "out", "--quiet") == 0
    lines = lines_of(tmp_path / "out", "lightning")
    assert_matches_sessions(lines, sessions("lightning"), checkpoints_exact=True)
    assert all(c["source_path"].startswith(str(project)) for c in of(lines, "checkpoint"))


def test_checkpoint_artifacts_logged_together_are_not_taken_for_save_times(tmp_path, capsys, wandb):
    """WandbLogger(log_model=True) logs every checkpoint when training ends, one artifact after the
    other: their place in the stream says nothing of when each was saved. The real Lightning run
    file with its artifact records moved so, just before its exit record."""

    def artifacts_last(records):
        artifacts = [r for r in records if r[0] == "artifact"]
        others = [r for r in records if r[0] != "artifact"]
        assert len(artifacts) == 3 and others[-1][0] == "exit"
        return others[:-1] + artifacts + others[-1:]

    project = materialize("wandb", tmp_path / "in", checkpoints=False)
    reframe(run_file(project, "lightning"), artifacts_last)
    assert run_cli(project, "--into", tmp_path / "out") == 0
    assert "checkpoint artifacts of steps 200, 400, 600 were logged together" in capsys.readouterr().err
    lines = lines_of(tmp_path / "out", "lightning")
    assert_matches_sessions(lines, sessions("lightning"), checkpoints_exact=False)
    assert all(
        "time of the evaluation logged one step before the checkpoint" in c["approximation"]
        for c in of(lines, "checkpoint")
    )


def test_without_files_or_artifacts_the_trainers_evaluations_at_its_save_steps_stand_in(tmp_path, wandb):
    """The HF Trainer without WANDB_LOG_MODEL logs no artifact: the real run file without them."""
    project = materialize("wandb", tmp_path / "in", checkpoints=False)
    reframe(run_file(project, "hf"), lambda records: [r for r in records if r[0] != "artifact"])
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    lines = lines_of(tmp_path / "out", "hf")
    assert_matches_sessions(lines, sessions("hf"), checkpoints_exact=False)
    assert all("the Trainer saves right after evaluating" in c["approximation"] for c in of(lines, "checkpoint"))


def test_lightning_config_task_and_epochs(out):
    (start,) = of(lines_of(out, "lightning"), "run_start")
    # save_hyperparameters (lr, hidden) and the script's own config update; W&B's _wandb left out
    assert start["config"] == {"max_epochs": 4, "lr": 0.003, "hidden": 128}
    assert (start["collection"], start["task"], start["task_source"]) == (WANDB_PROJECT, "addmod23", "job_type")
    assert start["source_run_id"] == "rllight1" and start["source_status"] == "exit code 0"
    assert all("epoch-level metrics" in e["approximation"] for e in of(lines_of(out, "lightning"), "epoch_end"))


def test_hf_trainer_config_task_and_epochs(out):
    lines = lines_of(out, "hf")
    (start,) = of(lines, "run_start")
    assert start["config"]["save_steps"] == 200 and start["config"]["output_dir"].endswith("/out-hf")
    assert (start["task"], start["task_source"]) == ("addmod-hf", "name")
    assert all("'train/epoch'" in e["approximation"] for e in of(lines, "epoch_end"))


@pytest.mark.parametrize("name", ["plain", "group_a", "group_b"])
def test_plain_loops_checkpoints_from_artifacts_and_epochs_from_epoch(out, name):
    lines = lines_of(out, name)
    assert_matches_sessions(lines, sessions(name), checkpoints_exact=False)
    (start,) = of(lines, "run_start")
    assert (start["task"], start["task_source"], start["framework"]) == ("addmod23", "config:task", "plain")
    assert all("step" not in e for e in of(lines, "epoch_end"))  # a loop's own step convention is unknown


def test_work_after_the_last_record_is_seen_through_the_exit_records_runtime(out):
    (end,) = of(lines_of(out, "group_b"), "run_end")  # 2.5 s of work after its last log
    assert "exit record's runtime" in end["approximation"]
    (end,) = of(lines_of(out, "group_a"), "run_end")
    assert "last timed W&B record" in end["approximation"]


def test_keras_epoch_metrics_give_the_epoch_ends(out):
    lines = lines_of(out, "keras_style")
    assert_matches_sessions(lines, sessions("keras_style"))
    assert of(lines, "run_start")[0]["framework"] == "keras" and of(lines, "checkpoint") == []
    assert all("per-epoch metrics (epoch/epoch)" in e["approximation"] for e in of(lines, "epoch_end"))


def test_the_group_is_the_collection(out):
    starts = {name: of(lines_of(out, name), "run_start")[0] for name in IDS}
    assert {name: s["collection"] for name, s in starts.items() if name.startswith("group_")} == {
        "group_a": f"{WANDB_PROJECT}/sweep-a",
        "group_b": f"{WANDB_PROJECT}/sweep-a",
    }
    assert {s["collection"] for name, s in starts.items() if not name.startswith("group_")} == {WANDB_PROJECT}
    assert (starts["group_a"]["config"]["lr"], starts["group_b"]["config"]["lr"]) == (0.003, 0.01)
    assert starts["plain"]["config"] == {"task": "addmod23", "lr": 0.003, "model": {"hidden": 128, "layers": 2}}
    assert "resources" not in starts["group_a"]  # system metadata off (x_disable_stats): GPUs unknown


def test_the_crashed_run_failed_at_its_traceback(out):
    lines = lines_of(out, "crash")
    assert_matches_sessions(lines, sessions("crash"))
    (start,) = of(lines, "run_start")
    (end,) = of(lines, "run_end")
    assert end["status"] == "failed" and start["source_status"] == "exit code 1"
    # console capture was on: the traceback's lines came within milliseconds of the raise
    assert 0 <= seconds(end["ts"]) - sessions("crash")[0]["run_end"]["ts"] < 0.1
    assert [e["epoch"] for e in of(lines, "epoch_end")] == [1, 2]  # the third was in progress


def test_the_resumed_run_is_one_run_with_two_sessions(out):
    lines = lines_of(out, "resumed")
    recorded = sessions("resumed")
    assert_matches_sessions(lines, recorded, checkpoints_exact=False)
    assert [e["status"] for e in of(lines, "run_end")] == ["failed", "completed"]  # the first is superseded
    assert len({line["source_path"] for line in of(lines, "run_start")}) == 2  # one run file per session
    assert not any(run_id.endswith("~2") for run_id in imported(out))


def test_task_key_names_a_config_key_and_collection_overrides(project, tmp_path):
    assert run_cli(project, "--into", tmp_path / "out", "--task-key", "lr", "--into-collection", "mine", "--quiet") == 0
    starts = {name: of(lines_of(tmp_path / "out", name), "run_start")[0] for name in ("plain", "lightning")}
    assert (starts["plain"]["task"], starts["plain"]["task_source"]) == ("0.003", "config:lr")
    assert (starts["lightning"]["task"], starts["lightning"]["task_source"]) == ("0.003", "config:lr")
    assert {s["collection"] for s in starts.values()} == {"mine"}


def test_what_an_online_run_leaves_in_files_fills_what_the_stream_lacks(project, tmp_path):
    folder = run_file(project, "crash").parent / "files"
    (folder / "config.yaml").write_text(
        "_wandb:\n  value:\n    cli_version: 0.31.0\ndataset:\n  desc: null\n  value: addmod-pairs\nlr:\n  value: 9\n"
    )
    metadata = {"startedAt": "2020-01-01T00:00:00.000000", "gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 8}
    (folder / "wandb-metadata.json").write_text(json.dumps(metadata))
    assert run_cli(project, "--into", tmp_path / "out", "--quiet") == 0
    (start,) = of(lines_of(tmp_path / "out", "crash"), "run_start")
    # the stream's environment record (started_at) wins over the file; its config keys too
    assert_within(start, sessions("crash")[0]["run_start"]["ts"], sessions("crash")[0]["run_start"]["ts_after"])
    model = {"hidden": 128, "layers": 2}
    assert start["config"] == {"dataset": "addmod-pairs", "lr": 0.003, "task": "addmod23", "model": model}
    assert start["resources"] == {"gpus": 8, "gpu_type": "NVIDIA H100 80GB HBM3"}  # the stream names none


# --------------------------------------------------------------------------------------------
# damaged folders: one line per bad run, the good runs imported


def test_a_cut_a_damaged_and_a_killed_run_file_are_named_and_the_others_imported(project, tmp_path, capsys):
    cut = run_file(project, "lightning")
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2 + 3])
    damaged = run_file(project, "plain")
    data = bytearray(damaged.read_bytes())
    data[BLOCK + 100] ^= 0xFF  # in the second block
    damaged.write_bytes(bytes(data))
    killed_folder = project / "wandb" / "offline-run-20261203_100000-rlkill01"
    killed_folder.mkdir()
    killed = killed_folder / "run-rlkill01.wandb"
    killed.write_bytes(run_file(project, "group_a").read_bytes()[:7])  # what SIGKILL leaves
    assert run_cli(project, "--into", tmp_path / "out") == 0
    found = {(r["reason"], r["source_path"]) for r in rejects(tmp_path / "out")}
    assert found == {("truncated_record", str(cut)), ("corrupt_record", str(damaged)), ("empty_run", str(killed))}
    assert all(r["source_format"] == "wandb" for r in rejects(tmp_path / "out"))
    runs = imported(tmp_path / "out")
    assert len(runs) == 8  # the killed run has nothing to import; the cut and damaged ones their first records
    for name in ("lightning", "plain"):
        lines = lines_of(tmp_path / "out", name)
        (start,) = of(lines, "run_start")
        assert of(lines, "run_end") == [] and start["source_status"] == "no exit record"
        assert seconds(start["last_heard_from"]) < sessions(name)[0]["run_end"]["ts"]
    for name in ("hf", "crash", "resumed", "keras_style", "group_a", "group_b"):
        assert_matches_sessions(lines_of(tmp_path / "out", name), sessions(name))
    assert "no exit record (still running, or killed)" in capsys.readouterr().err


def test_a_copied_run_folder_is_read_once(project, tmp_path, capsys):
    shutil.copytree(run_file(project, "hf").parent, project / "wandb" / "latest-run")  # the symlink, copied
    assert run_cli(project, "--into", tmp_path / "out") == 0
    assert len(imported(tmp_path / "out")) == 8
    assert_matches_sessions(lines_of(tmp_path / "out", "hf"), sessions("hf"))
    assert "latest-run/run-rlhf0001.wandb: a copy of" in capsys.readouterr().err


def test_other_logs_inside_a_wandb_run_folder_are_left_to_it(project, tmp_path, capsys):
    importer_extra("tensorboard")
    tb = materialize("lightning", tmp_path / "tb")
    (events,) = (tb / "lightning_logs").rglob("events.out.tfevents.*")
    target = run_file(project, "lightning").parent / "files" / "lightning_logs"
    target.mkdir()
    shutil.copy2(events, target / events.name)  # as sync_tensorboard=True leaves them
    assert run_cli(project, "--into", tmp_path / "out") == 0
    assert {line[0]["source_format"] for line in imported(tmp_path / "out").values()} == {"wandb"}
    assert "among the files of W&B run folder" in capsys.readouterr().err
    assert run_cli(target, "--into", tmp_path / "tb-out", "--format", "tensorboard", "--quiet") == 0
    assert len(imported(tmp_path / "tb-out")) == 1


def test_format_wandb_finds_nothing_in_other_logs_and_says_what_it_looks_for(tmp_path, capsys, wandb):
    source = materialize("lightning", tmp_path)
    assert run_cli(source, "--into", tmp_path / "out", "--format", "wandb") == 1
    assert "it looks for W&B run folders (wandb/run-*/run-<id>.wandb)" in capsys.readouterr().err


def test_without_the_wandb_package_runs_are_skipped_with_a_note(project, tmp_path, capsys, monkeypatch):
    available = runner._available
    monkeypatch.setattr(runner, "_available", lambda package: package != "wandb" and available(package))
    assert run_cli(project, "--into", tmp_path / "out", "--format", "wandb") == 2
    assert capsys.readouterr().err.startswith("runlens: reading W&B logs needs the importer extra")
    assert run_cli(project, "--into", tmp_path / "out") == 1  # auto: nothing else in the folder
    assert "wandb is not installed: W&B logs skipped" in capsys.readouterr().err


def test_importing_twice_writes_identical_files(project, tmp_path):
    cut = run_file(project, "crash")
    cut.write_bytes(cut.read_bytes()[:-5])
    run_cli(project, "--into", tmp_path / "a", "--quiet")
    run_cli(project, "--into", tmp_path / "b", "--quiet")
    first = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in sorted((tmp_path / "a").rglob("*")) if p.is_file()}
    second = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in sorted((tmp_path / "b").rglob("*")) if p.is_file()}
    assert first == second and Path("_import_rejects.jsonl") in first


# --------------------------------------------------------------------------------------------
# end to end: through the real dbt build into the marts and the report


def test_imported_wandb_runs_reach_the_marts_with_their_wall_times_and_downtime(out, tmp_path):
    from runlens.report.render import render_reports

    database = tmp_path / "db" / DATABASE
    build(PROJECT, out, database)
    connection = duckdb.connect(str(database), read_only=True)
    try:
        rows = connection.execute(
            "select run_id, collection, status, wall_seconds, downtime_seconds, restarts, source_format"
            " from fct_runs order by run_id"
        ).fetchall()
        collections = connection.execute(
            "select collection, runs_analyzed, runs_excluded from agg_collection_runtime"
            " where runs_analyzed + runs_excluded > 0 order by collection"  # the seed's collections have none
        ).fetchall()
    finally:
        connection.close()
    by_id = {row[0].split("/")[-1]: row[1:] for row in rows}
    assert len(rows) == 8 and {row[-1] for row in rows} == {"wandb"}
    names = {run_id: name for name, run_id in IDS.items()}
    for run_id, (collection, status, wall, downtime, restarts, _) in by_id.items():
        recorded = sessions(names[run_id])
        assert collection == (f"{WANDB_PROJECT}/sweep-a" if names[run_id].startswith("group_") else WANDB_PROJECT)
        assert status == recorded[-1]["run_end"]["status"] and restarts == len(recorded) - 1
        assert (downtime > 0) is (restarts > 0)
        # the run_start is exact, the run_end approximate; the wall time lies in the record's bracket
        low = recorded[-1]["run_end"]["ts"] - recorded[0]["run_start"]["ts_after"] - EXACT - APPROXIMATE
        high = recorded[-1]["run_end"]["ts_after"] - recorded[0]["run_start"]["ts"] + EXACT + APPROXIMATE
        assert low <= wall <= high, (run_id, wall, low, high)
    # downtime (def_downtime): from the first session's last event, its end (the run_end the importer
    # writes for it, approximate as the run's own end is), to the restart
    first, second = sessions("resumed")
    low = second["run_start"]["ts"] - first["run_end"]["ts_after"] - EXACT - APPROXIMATE
    high = second["run_start"]["ts_after"] - first["run_end"]["ts"] + EXACT + APPROXIMATE
    assert low <= by_id["rlresum1"][3] <= high, (by_id["rlresum1"][3], low, high)
    assert collections == [
        (WANDB_PROJECT, 5, 1),
        (f"{WANDB_PROJECT}/sweep-a", 2, 0),
    ]  # the crashed run: excluded, failed
    render_reports(database, tmp_path / "reports")
    assert sorted(p.parent.name for p in (tmp_path / "reports").rglob("profile.md")) == [
        "runlens-fixture",
        "runlens-fixture-sweep-a",
    ]
    page = (tmp_path / "reports" / "runlens-fixture" / "profile.md").read_text()
    assert "Some marker times are stand-ins" in page


def test_the_fixture_is_small_and_holds_no_weights():
    files = [p for p in (FIXTURES / "wandb").rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 512 * 1024
    assert not [p for p in files if p.suffix in (".ckpt", ".pt", ".pth", ".bin", ".safetensors")]
    assert len(list((FIXTURES / "wandb" / "wandb").glob("*/run-*.wandb"))) == 9
