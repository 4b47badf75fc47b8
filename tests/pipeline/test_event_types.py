"""Event aliases end to end (input_contract.md, "Event types"): a build with other aliases reads
every file again and reads an alias as the type it stands for; a wrong alias stops the build with
one line. The line rules for other events and typos are dbt unit tests of stg_log_lines
(models/staging/_staging__models.yml); the faulty fixture's other events are checked in
tests/pipeline/test_faulty_fixture.py."""

from __future__ import annotations

import json

import duckdb
import pytest

from runlens.report.render import render_reports
from tests.support.pipeline import PROJECT, REFRESH, build, copy_database, run_dbt


def figures(database):
    with duckdb.connect(str(database), read_only=True) as connection:
        plain = connection.execute(
            "select accepted, other_events, rejected from agg_file_data_quality where file_path = 'alpha/plain.jsonl'"
        ).fetchone()
        records = connection.execute("select event_aliases from stg_log_lines where line_number = 0").fetchall()
        aliases = {row[0] for row in records}
        intervals = connection.execute(
            "select label, seconds from fct_run_intervals where run_id = 'alpha-plain' order by interval_index"
        ).fetchall()
    return plain, aliases, intervals


def refresh(raw, database, aliases: str):
    result = run_dbt(PROJECT, raw, database, *REFRESH, env={"RUNLENS_EVENT_ALIASES": aliases})
    assert result.returncode == 0, result.stdout[-6000:]


def test_an_alias_change_reads_every_file_again(faulty_build, tmp_path):
    database = copy_database(faulty_build.database, tmp_path / "db")
    # alpha/plain.jsonl line 15 is a `metric` at 00:22:00 with step 180 (EXPECTED.md): read as a
    # checkpoint it splits step_100 (00:10:00) -> step_200 (00:25:00.250) in two
    refresh(faulty_build.raw, database, "metric=checkpoint")
    plain, aliases, intervals = figures(database)
    assert plain == (6, 1, 6)  # accepted 5 + the metric; other events: only the eval left
    assert aliases == {"metric=checkpoint"}  # every file was read again
    assert intervals == [
        ("run_start -> step_100", pytest.approx(600.0)),
        ("step_100 -> step_180", pytest.approx(720.0)),
        ("step_180 -> step_200", pytest.approx(180.25)),
        ("step_200 -> epoch_end", pytest.approx(299.75)),
        ("epoch_end -> run_end", pytest.approx(600.0)),
    ]

    refresh(faulty_build.raw, database, "")  # and back: the metric is an other event again
    plain, aliases, intervals = figures(database)
    assert plain == (5, 2, 6)
    assert aliases == {""}
    assert [label for label, _ in intervals] == [
        "run_start -> step_100",
        "step_100 -> step_200",
        "step_200 -> epoch_end",
        "epoch_end -> run_end",
    ]


@pytest.mark.parametrize(
    ("aliases", "message"),
    [
        ("save=chekpoint", "runlens: event alias 'save=chekpoint' names no runlens event type"),
        ("run_start=checkpoint", "runlens: event alias 'run_start=checkpoint': the alias must be a name other than"),
        ("save", "runlens: event alias 'save' is not of the form alias=type"),
        ("save=checkpoint,save=run_end", "runlens: event alias 'save' is given for both checkpoint and run_end"),
    ],
)
def test_a_wrong_alias_stops_the_build_with_one_line(faulty_build, tmp_path, aliases, message):
    database = tmp_path / "db" / "runlens.duckdb"
    result = run_dbt(PROJECT, faulty_build.raw, database, "parse", env={"RUNLENS_EVENT_ALIASES": aliases})
    assert result.returncode != 0
    assert message in result.stdout


def test_a_chatty_log_builds_with_no_rejects_and_the_right_figures(tmp_path):
    """A run with 11 markers and 2,100 metric and eval lines: no reject, the markers' figures, and a
    report that names the other events without calling them rejects."""

    def line(event, seconds, **fields):
        minutes, second = divmod(seconds, 60)
        hours, minute = divmod(minutes, 60)
        ts = f"2025-01-01T{hours:02d}:{minute:02d}:{second:02d}Z"
        return json.dumps({"run_id": "chatty", "event": event, "ts": ts, **fields})

    lines = [line("run_start", 0, collection="chatty/c", task="t")]
    lines += [line("checkpoint", 600 * k, step=100 * k) for k in range(1, 9)]  # 00:10 .. 01:20
    lines += [line("epoch_end", 5100, epoch=1, step=800), line("run_end", 5400)]  # 01:25, 01:30
    lines += [line("metric", 1 + 2 * i, step=i, loss=1 / (i + 1)) for i in range(2000)]
    lines += [line("eval", 30 + 50 * i, accuracy=0.5) for i in range(100)]
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "chatty.jsonl").write_text("\n".join(lines) + "\n")
    database = tmp_path / "db" / "runlens.duckdb"
    build(PROJECT, raw, database)

    with duckdb.connect(str(database), read_only=True) as connection:
        quality = connection.execute(
            "select lines_read, accepted, duplicates, other_events, rejected from agg_file_data_quality"
        ).fetchall()
        run = connection.execute(
            "select status, wall_seconds, pre_tail_seconds, tail_seconds, interval_count from fct_runs"
        ).fetchall()
        types = dict(connection.execute("select event_type, other_event_lines from agg_build_other_events").fetchall())
    assert quality == [(2111, 11, 0, 2100, 0)]
    # 00:00 -> 01:30 is 5400 s; the last epoch_end at 01:25 leaves a 300 s tail; 10 intervals
    assert run == [("completed", 5400.0, 5100.0, 300.0, 10)]
    assert types == {"metric": 2000, "eval": 100}

    render_reports(database, tmp_path / "reports")
    page = next((tmp_path / "reports").rglob("profile.md")).read_text()
    assert "- other events, of types runlens does not use (kept in `fct_other_events`, not rejected): 2,100" in page
    assert "- rejected lines: 0" in page and "were rejected" not in page  # no Limits line about rejects
    index = (tmp_path / "reports" / "index.md").read_text()
    assert "2,100 other events (metric 2,000, eval 100; kept in `fct_other_events`)" in index
