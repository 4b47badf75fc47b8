"""Event aliases end to end (input_contract.md, "Event types"): a build with other aliases reads
every file again and reads an alias as the type it stands for; a wrong alias stops the build with
one line. The line rules for other events and typos are dbt unit tests of stg_log_lines
(models/staging/_staging__models.yml); the faulty fixture's other events are checked in
tests/test_faulty_fixture.py."""

from __future__ import annotations

import duckdb
import pytest
from conftest import FAULTY_PROJECT, copy_database
from pipeline import REFRESH, run_dbt


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
    result = run_dbt(FAULTY_PROJECT, raw, database, *REFRESH, env={"RUNLENS_EVENT_ALIASES": aliases})
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
    result = run_dbt(FAULTY_PROJECT, faulty_build.raw, database, "parse", env={"RUNLENS_EVENT_ALIASES": aliases})
    assert result.returncode != 0
    assert message in result.stdout
