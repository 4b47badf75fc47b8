"""The writer's logs through the rest of runlens, unchanged (issue 12): one real `dbt build` over
everything the writer and its callbacks wrote in this session, then the marts and the report.

- The four recorded trainings (tests/support/writer_trainings.py: Lightning, Hugging Face Trainer, Keras,
  plain loop) are completed runs measured by the event log, with the wall time of the test's own
  record (within 0.05 s), their checkpoints and epoch ends as interval markers, and their
  profiler sections in agg_collection_profile_sections (the sums of the logs' latest profiles), which the
  report then shows instead of the Limits line about missing sections.
- A run crashed and resumed counts one restart, with the downtime between its last checkpoint and
  the restart; a run whose context raised is failed; every line is accepted except a truncated
  last line, rejected by name (invalid_json).
- A run killed without warning has no run_end; the input contract calls it incomplete. The marts
  call a run without run_end whose profile has wall_seconds "completed, measured by the profiler",
  and the writer's profile at every checkpoint gives a killed run one: that test is an expected
  failure until the marts' status rule (def_status, fct_runs) is settled.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb
import pytest
from runlens_writer import start_run

from runlens.report.render import render_reports
from tests.support.pipeline import DATABASE, PROJECT, REPO, build
from tests.support.writer_trainings import COLLECTION, FRAMEWORKS, Training

PROMISES = "writer-promises"
DOWNTIME_SECONDS = 0.3
TRUNCATED_LINE = '{"run_id":"killed","event":"checkpoint","ts":"2026-'
KILLED_WRITER = """
import os, signal, sys, time
import runlens_writer

log = runlens_writer.start_run(sys.argv[1], collection="writer-promises", task="killed")
with log.section("train_step"):
    time.sleep(0.05)
log.checkpoint(3)
os.kill(os.getpid(), signal.SIGKILL)
"""


def write_promised_runs(folder) -> None:
    """A crashed-and-resumed run, a failed run and a killed run, written by the writer for real."""
    first = start_run(folder / "resumed.jsonl", collection=PROMISES, task="resumed", config={"lr": 0.1})
    with first.section("train_step"):
        time.sleep(0.05)
    first.checkpoint(1)
    first.close()  # the process dies here: no run_end
    time.sleep(DOWNTIME_SECONDS)
    with start_run(folder / "resumed.jsonl", collection=PROMISES, task="resumed", config={"lr": 0.1}) as second:
        with second.section("train_step"):
            time.sleep(0.05)
        second.checkpoint(2)

    with pytest.raises(RuntimeError), start_run(folder / "failed.jsonl", collection=PROMISES, task="failed") as log:
        log.checkpoint(1)
        raise RuntimeError("diverged")

    killed = folder / "killed.jsonl"
    environment = {**os.environ, "PYTHONPATH": str(REPO / "writer")}
    finished = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(killed)], env=environment, check=False)
    assert finished.returncode == -signal.SIGKILL
    with killed.open("a", encoding="utf-8") as crashed:  # what a crash in the middle of a write would leave
        crashed.write(TRUNCATED_LINE)


@dataclass
class WriterMarts:
    connection: duckdb.DuckDBPyConnection
    database: Path
    raw: Path
    trainings: dict[str, Training]


@pytest.fixture(scope="module")
def writer_marts(writer_training, tmp_path_factory):
    trainings = {framework: writer_training(framework) for framework in FRAMEWORKS}
    raw = tmp_path_factory.mktemp("writer_raw")
    (raw / "callbacks").mkdir()
    for training in trainings.values():
        shutil.copy2(training.log_path, raw / "callbacks" / training.log_path.name)
    (raw / "promises").mkdir()
    write_promised_runs(raw / "promises")
    database = tmp_path_factory.mktemp("writer_db") / DATABASE
    build(PROJECT, raw, database)
    connection = duckdb.connect(str(database), read_only=True)
    yield WriterMarts(connection, database, raw, trainings)
    connection.close()


def run(connection, run_id: str) -> dict:
    cursor = connection.execute("select * from fct_runs where run_id = ?", [run_id])
    columns = [column[0] for column in cursor.description]
    return dict(zip(columns, cursor.fetchone(), strict=True))


def test_every_line_is_accepted_but_a_truncated_last_line(writer_marts):
    connection = writer_marts.connection
    rejected = connection.execute(
        "select file_path, rejected from agg_file_data_quality where rejected > 0 or lines_read <> accepted + rejected"
    ).fetchall()
    assert [(os.path.basename(path), count) for path, count in rejected] == [("killed.jsonl", 1)]
    assert connection.execute("select reject_reason, rejected_lines from agg_build_reject_reasons").fetchall() == [
        ("invalid_json", 1)
    ]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_recorded_training_is_a_completed_run_with_its_wall_time(writer_marts, framework):
    connection, trainings = writer_marts.connection, writer_marts.trainings
    figures = run(connection, framework)
    assert (figures["collection"], figures["task"], figures["status"]) == (COLLECTION, framework, "completed")
    assert figures["measurement_source"] == "event_log" and figures["has_profile"] and figures["restarts"] == 0
    marks = {event: at for event, _, at in trainings[framework].record.marks}
    assert abs(figures["wall_seconds"] - (marks["run_end"] - marks["run_start"])) <= 0.05
    query = "select to_marker from fct_run_intervals where run_id = ? order by interval_index"
    to_markers = [marker for (marker,) in connection.execute(query, [framework]).fetchall()]
    assert {"step_4", "step_8", "epoch_end", "run_end"} <= set(to_markers) and to_markers[-1] == "run_end"
    assert figures["tail_seconds"] is not None and figures["interval_count"] == 5


def test_profile_sections_reach_the_marts_as_the_logs_latest_profiles(writer_marts):
    connection, trainings = writer_marts.connection, writer_marts.trainings
    expected: dict[str, float] = {}
    for training in trainings.values():
        latest = [event for event in training.events() if event["event"] == "profile"][-1]
        for name, seconds in latest["sections"].items():
            expected[name] = expected.get(name, 0.0) + seconds
    rows = connection.execute(
        "select section, total_seconds, profiled_runs from agg_collection_profile_sections where collection = ?",
        [COLLECTION],
    ).fetchall()
    totals = {section: seconds for section, seconds, _ in rows}
    assert set(totals) == set(expected) | {"unattributed"}
    for name, seconds in expected.items():
        assert totals[name] == pytest.approx(seconds, abs=1e-6)
    assert {runs for _, _, runs in rows} == {len(FRAMEWORKS)}


def test_the_report_shows_the_sections_and_not_the_missing_sections_limit(writer_marts, tmp_path):
    render_reports(writer_marts.database, tmp_path, COLLECTION)
    page = next(tmp_path.rglob("profile.md")).read_text(encoding="utf-8")
    for section in ("train_step", "data_loading", "eval", "checkpoint_save", "unattributed"):
        assert "| " + section + " |" in page  # a row of the sections table (an intraword _ needs no escape)
    assert "## Time by profiler section" in page and "no run carries a profiler summary" not in page
    # the sections measured saving: no sentence says that saves are only moments in the log
    assert "Checkpoint saves are logged as moments" not in page


def test_a_resumed_run_counts_its_restart_and_downtime(writer_marts):
    connection = writer_marts.connection
    figures = run(connection, "resumed")
    assert figures["status"] == "completed" and figures["restarts"] == 1
    assert DOWNTIME_SECONDS <= figures["downtime_seconds"] <= DOWNTIME_SECONDS + 0.2
    assert figures["active_seconds"] == pytest.approx(figures["wall_seconds"] - figures["downtime_seconds"])
    assert figures["wall_seconds"] > figures["downtime_seconds"]


def test_a_run_whose_context_raised_is_failed(writer_marts):
    connection = writer_marts.connection
    figures = run(connection, "failed")
    assert (figures["status"], figures["exclusion_reason"]) == ("failed", "failed")


def test_a_killed_run_stays_incomplete(writer_marts):
    connection = writer_marts.connection
    assert run(connection, "killed")["status"] == "incomplete"


def test_a_killed_run_keeps_its_sections_up_to_its_last_checkpoint(writer_marts):
    connection = writer_marts.connection
    assert run(connection, "killed")["has_profile"]
    lines = (writer_marts.raw / "promises" / "killed.jsonl").read_text(encoding="utf-8").splitlines()
    latest = json.loads(lines[-2])
    assert (latest["event"], latest["sections"]["train_step"] >= 0.05) == ("profile", True)
    assert json.loads(lines[-3]) == {**json.loads(lines[-3]), "event": "checkpoint", "step": 3}
    assert lines[-1] == TRUNCATED_LINE


def epoch_seconds(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def test_marker_times_survive_the_build_to_the_microsecond(writer_marts):
    connection, trainings = writer_marts.connection, writer_marts.trainings
    training = trainings["plain_loop"]
    written = [
        epoch_seconds(event["ts"])
        for event in training.events()
        if event["event"] in ("run_start", "checkpoint", "epoch_end", "run_end")
    ]
    built = connection.execute(
        "select epoch(started_at) from fct_run_intervals where run_id = 'plain_loop' order by interval_index"
    ).fetchall()
    assert [round(at, 6) for (at,) in built] == [round(at, 6) for at in written[:-1]]
    assert json.loads(training.lines()[0])["config"]["optimizer"] == {"name": "sgd"}
