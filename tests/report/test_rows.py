"""The report reads each mart through one generic path (report/rows.py): a row has every column
the mart's YAML contract declares, and a page fails loudly, in one line that says what to do, when
the database lacks a column or holds another type than the contract says."""

from __future__ import annotations

import json
import shutil

import duckdb
import jinja2
import pytest

from runlens.report.data import PROFILE_READS, in_collection
from runlens.report.render import ReportError, environment, render_reports
from runlens.report.rows import MartRead, contract, mart_row, read_mart
from tests.support.pipeline import FAULTY


def test_a_mart_read_gives_every_column_of_the_contract(faulty_db_path):
    """fixture/alpha's runtime, against the figures worked out by hand in expected.json."""
    expected = json.loads((FAULTY / "expected.json").read_text())["collections"]["fixture/alpha"]
    with duckdb.connect(str(faulty_db_path), read_only=True) as connection:
        (alpha,) = read_mart(
            connection, MartRead("agg_collection_runtime", "collection = $collection"), collection="fixture/alpha"
        )
        tasks = read_mart(connection, in_collection(PROFILE_READS["tasks"]), collection="fixture/alpha")
    assert tuple(vars(alpha)) == tuple(column for column, _ in contract("agg_collection_runtime"))
    for figure in ("runs_analyzed", "mean_wall_seconds", "median_wall_seconds", "min_wall_seconds", "p90_wall_seconds"):
        assert getattr(alpha, figure) == pytest.approx(expected[figure]), figure
    assert tasks and all(task.runs_analyzed > 0 for task in tasks)
    assert [task.mean_wall_seconds for task in tasks] == sorted(
        (task.mean_wall_seconds for task in tasks), reverse=True
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("alter table agg_task_runtime drop column p95_wall_seconds", "agg_task_runtime lacks p95_wall_seconds"),
        (
            "alter table agg_task_runtime alter p95_wall_seconds type varchar",
            "agg_task_runtime.p95_wall_seconds holds str, its contract says float",
        ),
    ],
)
def test_a_page_fails_in_one_line_on_a_mart_unlike_its_contract(faulty_db_path, tmp_path, change, said):
    database = tmp_path / "runlens.duckdb"
    shutil.copy(faulty_db_path, database)
    with duckdb.connect(str(database)) as connection:
        connection.execute(change)
    with pytest.raises(ReportError) as raised:
        render_reports(database, tmp_path / "reports")
    message = str(raised.value)
    assert said in message and "run `runlens build` again" in message and "\n" not in message


def test_a_template_fails_loudly_on_a_column_the_row_lacks():
    task = mart_row("agg_task_runtime", task="t", mean_wall_seconds=60.0)
    template = environment().from_string("{{ task.mean_wall_seconds }} {{ task.mean_wall_hours }}")
    with pytest.raises(jinja2.UndefinedError, match="mean_wall_hours"):
        template.render(task=task)
