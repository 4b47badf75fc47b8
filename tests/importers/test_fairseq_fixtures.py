"""What fairseq's logs state about where an epoch's time went (tests/fixtures/importers/fairseq/),
imported by the text-log importer as cumulative profiles: validation from each `begin validation`
line to its summary line, the epochs' `train_wall` as train, the save times as checkpoint_save; a
restart in the log is a new process whose counters start again. Every expected figure below is
worked out by hand from the fixture's lines (the times are whole seconds, read as UTC).
"""

from __future__ import annotations

import json
import shutil

import duckdb
import jsonschema
import pytest

from runlens.cli import main
from tests.support.importer_fixtures import FIXTURES, of, only_run, rejects
from tests.support.pipeline import DATABASE, PROJECT, REPO, build

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())
FAIRSEQ = FIXTURES / "fairseq"


def imported(tmp_path, name: str) -> list[dict]:
    log = shutil.copytree(FAIRSEQ / name, tmp_path / "logs" / name) / "train.log"
    out = tmp_path / "out" / name
    assert main(["import", str(log), "--into", str(out), "--format", "text", "--timezone", "UTC", "--quiet"]) == 0
    lines = only_run(out)
    for line in lines:
        jsonschema.validate(line, SCHEMA)
    return lines


def figures(profile: dict) -> tuple:
    sections = {name: pytest.approx(seconds, abs=1e-9) for name, seconds in profile["sections"].items()}
    return profile["ts"][11:19], profile["wall_seconds"], sections, profile["final"]


def test_each_epoch_end_gets_a_cumulative_profile_of_validation_train_and_saves(tmp_path):
    lines = imported(tmp_path, "iwslt")
    profiles = of(lines, "profile")
    # the process began at 14:00:00 (line 1). Epoch 1: validation 14:01:00 -> its summary 14:01:20
    # = 20 s; save 1.75 s; train_wall 57. Epoch 2: 14:02:20 -> 14:02:41 = 21 s; 2.25 s; 58.
    # Epoch 3: 14:03:43 -> 14:04:05 = 22 s; 1.5 s; 58; its end and `done training` both at
    # 14:04:07: one profile there, final.
    assert [figures(p) for p in profiles] == [
        ("14:01:22", 82.0, {"checkpoint_save": 1.75, "validation": 20.0, "train": 57.0}, False),
        ("14:02:44", 164.0, {"checkpoint_save": 4.0, "validation": 41.0, "train": 115.0}, False),
        ("14:04:07", 247.0, {"checkpoint_save": 5.5, "validation": 63.0, "train": 173.0}, True),
    ]
    # each written after the epoch_end and checkpoint of its moment
    events = [line["event"] for line in lines]
    assert events[-4:] == ["checkpoint", "epoch_end", "run_end", "profile"]
    assert [line["source_line"] for line in profiles] == [18, 30, 44]
    assert profiles[0]["wall_seconds_source"].endswith("(line 1) to epoch 1's end")
    assert profiles[-1]["wall_seconds_source"].endswith("to the run_end line")
    assert profiles[-1]["section_sources"]["validation"].startswith("3 validations the log states")
    assert "train_wall stated in whole seconds" in profiles[-1]["approximation"]
    (end,) = of(lines, "run_end")
    assert end["is_approximate"] and end["approximation"] == "run_end from a log line with whole-second times"


def test_a_restart_in_the_log_is_a_new_process_whose_counters_start_again(tmp_path):
    lines = imported(tmp_path, "restarted")
    starts, trains = of(lines, "run_start"), of(lines, "train_start")
    assert [(s["ts"][11:19], s["source_line"]) for s in starts] == [("09:00:00", 1), ("09:10:00", 18)]
    assert "restarted process" in starts[1]["approximation"]
    # the second process trains from the checkpoint it loaded (epoch 1 @ 379 updates)
    assert [(t["ts"][11:19], t.get("step")) for t in trains] == [("09:00:05", None), ("09:10:04", 379)]
    # process 1 (line 1, 09:00:00): epoch 1 ends at 09:01:27, validation 09:01:05 -> 09:01:25 = 20 s,
    # save 1.5 s, train_wall 59; its last line, 09:02:30, is inside epoch 2's validation, which
    # never ended: left out. Process 2 (from 09:10:00): epoch 2 ends at 09:11:28, validation
    # 09:11:04 -> 09:11:25 = 21 s, save 2.5 s, train_wall 60; `done training` at 09:11:29: final.
    assert [figures(p) for p in of(lines, "profile")] == [
        ("09:01:27", 87.0, {"checkpoint_save": 1.5, "validation": 20.0, "train": 59.0}, False),
        ("09:02:30", 150.0, {"checkpoint_save": 1.5, "validation": 20.0, "train": 59.0}, False),
        ("09:11:28", 88.0, {"checkpoint_save": 2.5, "validation": 21.0, "train": 60.0}, False),
        ("09:11:29", 89.0, {"checkpoint_save": 2.5, "validation": 21.0, "train": 60.0}, True),
    ]
    assert [(e["epoch"], e["step"]) for e in of(lines, "epoch_end")] == [(1, 379), (2, 758)]
    (end,) = of(lines, "run_end")
    assert end["ts"][11:19] == "09:11:29" and end["status"] == "completed"


def test_a_validation_without_its_summary_line_ends_at_its_epoch_end_less_the_saves(tmp_path):
    """With the summary lines gone, epoch 1's validation runs from 14:01:00 to the epoch's end
    14:01:22, less the 1.75 s save stated in between: 20.25 s; and so on."""
    source = (FAIRSEQ / "iwslt" / "train.log").read_text().splitlines(keepends=True)
    log = tmp_path / "logs" / "nosummary" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(line for line in source if "valid on 'valid' subset" not in line))
    assert main(["import", str(log), "--into", str(tmp_path / "out"), "--format", "text", "--quiet"]) == 0
    validations = [p["sections"]["validation"] for p in of(only_run(tmp_path / "out"), "profile")]
    # 22 - 1.75 = 20.25; + (14:02:20 -> 14:02:44 = 24) - 2.25 = 21.75; + (14:03:43 -> 14:04:07 = 24) - 1.5 = 22.5
    assert validations == pytest.approx([20.25, 42.0, 64.5])


def test_validation_reaches_the_marts_as_evaluation(tmp_path):
    """A real build over both imported logs: the completed run's sections, from its final profile,
    and its goodput's evaluation and saving are the figures its log states."""
    for name in ("iwslt", "restarted"):
        imported(tmp_path, name)
    raw = tmp_path / "out"
    database = tmp_path / "db" / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    try:
        sections = connection.execute(
            "select section, seconds from fct_run_profile_sections where run_id = 'iwslt/train' order by section"
        ).fetchall()
        goodput = connection.execute(
            "select wall_seconds, evaluation_seconds, checkpoint_save_seconds from fct_run_goodput "
            "where run_id = 'iwslt/train'"
        ).fetchone()
        profiles = connection.execute(
            "select run_id, count(*) from fct_events where event_type = 'profile' group by run_id order by run_id"
        ).fetchall()
        rejected = connection.execute("select count(*) from fct_rejected_lines").fetchone()[0]
    finally:
        connection.close()
    assert rejected == 0
    assert profiles == [("iwslt/train", 3), ("restarted/train", 4)]
    assert [(section, pytest.approx(seconds)) for section, seconds in sections] == [
        ("checkpoint_save", 5.5),
        ("train", 173.0),
        ("unattributed", 5.5),  # 247 s less 5.5 + 173 + 63
        ("validation", 63.0),
    ]
    # 14:00:00 to 14:04:07; the validation the log states is evaluation, no longer productive
    assert goodput == (247.0, pytest.approx(63.0), pytest.approx(5.5))


def test_a_line_whose_timestamp_is_no_time_is_recorded_not_dropped(tmp_path):
    """A line whose stamp matches the pattern but is no time (hour 25) cannot be placed: it is a
    reject naming its file and line, and every other line is read as before."""
    source = (FAIRSEQ / "iwslt" / "train.log").read_text().splitlines(keepends=True)
    source[21] = source[21].replace("14:02:20", "25:02:20")  # line 22: epoch 2's `begin validation`
    log = tmp_path / "logs" / "odd" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(source))
    assert main(["import", str(log), "--into", str(tmp_path / "out"), "--format", "text", "--quiet"]) == 0
    (reject,) = rejects(tmp_path / "out")
    assert (reject["reason"], reject["source_path"]) == ("bad_timestamp", str(log))
    assert reject["detail"].startswith("line 22: '2021-05-10 25:02:20' is no time")
    lines = only_run(tmp_path / "out")
    assert len(of(lines, "epoch_end")) == 3 and len(of(lines, "checkpoint")) == 3
    # epoch 2's validation has no begin line left: it ends at its summary line without having
    # begun, so only epochs 1 and 3 count (20 s + 22 s)
    assert of(lines, "profile")[-1]["sections"]["validation"] == pytest.approx(42.0)


def test_a_restart_in_the_second_of_the_last_line_keeps_each_profile_with_its_process(tmp_path):
    """The second process printing its config in the very second the first one's last line was
    written (09:02:30): the first process's profile at its last line would sort after the new
    run_start and read as the second process's, so it is left out; its epoch 1 profile stays."""
    source = (FAIRSEQ / "restarted" / "train.log").read_text().splitlines(keepends=True)
    source[17] = source[17].replace("09:10:00", "09:02:30")  # line 18: the second process's config dump
    log = tmp_path / "logs" / "quick" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(source))
    assert main(["import", str(log), "--into", str(tmp_path / "out"), "--format", "text", "--quiet"]) == 0
    lines = only_run(tmp_path / "out")
    order = [(line["event"], line["ts"][11:19]) for line in lines if line["event"] in ("run_start", "profile")]
    # the second process's wall time now runs from 09:02:30: 538 s to 09:11:28, 539 s to 09:11:29
    assert order == [
        ("run_start", "09:00:00"),
        ("profile", "09:01:27"),
        ("run_start", "09:02:30"),
        ("profile", "09:11:28"),
        ("profile", "09:11:29"),
    ]
    assert [p["wall_seconds"] for p in of(lines, "profile")] == [87.0, 538.0, 539.0]


def edited_iwslt(tmp_path, edit) -> list[dict]:
    """The iwslt log with its lines changed by edit (a list of lines -> a list of lines), imported."""
    source = (FAIRSEQ / "iwslt" / "train.log").read_text().splitlines(keepends=True)
    log = tmp_path / "logs" / "edited" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(edit(source)))
    assert main(["import", str(log), "--into", str(tmp_path / "out"), "--format", "text", "--quiet"]) == 0
    return only_run(tmp_path / "out")


def test_a_validation_inside_an_epoch_counts_up_to_its_summary_line(tmp_path):
    """fairseq's --validate-interval-updates validates inside an epoch, and training goes on after
    it: a validation from 14:00:30 to its summary at 14:00:40 in epoch 1 is 10 s more, not the rest
    of the epoch."""
    inside = [
        '2021-05-10 14:00:30 | INFO | fairseq_cli.train | begin validation on "valid" subset\n',
        "2021-05-10 14:00:40 | INFO | valid | epoch 001 | valid on 'valid' subset | loss 10.1 | num_updates 200\n",
    ]
    lines = edited_iwslt(tmp_path, lambda source: source[:9] + inside + source[9:])
    assert [p["sections"]["validation"] for p in of(lines, "profile")] == pytest.approx([30.0, 51.0, 73.0])


def test_an_epoch_without_its_train_wall_leaves_train_unwritten(tmp_path):
    """Epoch 2's summary line gone: a sum of train_wall would leave that epoch out, so no profile
    of the process states train; validation and saves are still stated."""
    lines = edited_iwslt(tmp_path, lambda source: [line for line in source if "| train | epoch 002 |" not in line])
    profiles = of(lines, "profile")
    assert [sorted(p["sections"]) for p in profiles] == [["checkpoint_save", "validation"]] * 3
    assert "train_wall" not in profiles[-1]["approximation"]
