"""Many-epoch runs (issue 14): the epoch and interval-kind marts over a generated fixture
(tests/support/many_epochs.py), with figures worked out by hand below, and the golden report page.

The fixture, in seconds per run (T = the training of every epoch after the first):

    translate-1..3: T = 300, 320, 340; first training T + 300; checkpoint -> epoch_end 10;
                    validation 60; after the last validation checkpoint 30 more to run_end.
    summarize-1..2: T = 200, 240; first training T + 400; checkpoint -> epoch_end 5;
                    validation 120; run_end at the 50th epoch_end.

Epoch 1 = first training + checkpoint -> epoch_end; a later epoch = the previous epoch's
validation + T + checkpoint -> epoch_end (an epoch runs from one epoch_end to the next):

    translate: epoch 1 = 610, 630, 650; later = 60 + T + 10 = 370, 390, 410
    summarize: epoch 1 = 605, 645; later = 120 + T + 5 = 325, 365
    wall: translate 50 T + 3830 = 18830, 19830, 20830; summarize 50 T + 6530 = 16530, 18530
"""

from __future__ import annotations

import duckdb
import pytest

from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE
from runlens.report.render import render_reports
from tests.support import many_epochs
from tests.support.golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt

GOLDEN = GOLDEN_ROOT / "many_epochs"
SEED = "collection,title,baseline_collection,design_url,results_url\nmany-epochs,Many epochs,,,\n"
FIRST = {"translate-1": 610, "translate-2": 630, "translate-3": 650, "summarize-1": 605, "summarize-2": 645}
LATER = {"translate-1": 370, "translate-2": 390, "translate-3": 410, "summarize-1": 325, "summarize-2": 365}
WALL = {"translate": 18830 + 19830 + 20830, "summarize": 16530 + 18530}


@prebuilt()
def many_epochs_build(builds: Prebuilds):
    """The marts over the generated many-epoch fixture."""
    root = builds.mktemp("many_epochs")
    raw = many_epochs.write(root / "raw")
    (raw / COLLECTIONS_FILE).write_text(SEED, encoding="utf-8")
    build(PROJECT, raw, root / "db" / DATABASE)
    return root / "db" / DATABASE


@pytest.fixture(scope="module")
def marts(many_epochs_build):
    connection = duckdb.connect(str(many_epochs_build), read_only=True)
    yield connection
    connection.close()


def rows(connection, query: str) -> list[tuple]:
    return connection.execute(query).fetchall()


def test_every_epoch_runs_from_one_epoch_end_to_the_next(marts):
    for run_id, first in FIRST.items():
        epochs = rows(
            marts, f"select epoch_index, logged_epoch, active_seconds from fct_run_epochs where run_id = '{run_id}'"
        )
        assert sorted(epochs) == [(1, 1, first)] + [(index, index, LATER[run_id]) for index in range(2, 51)]


def test_first_epoch_against_the_rest_per_run(marts):
    got = {
        row[0]: row[1:]
        for row in rows(
            marts,
            "select run_id, epoch_count, first_epoch_seconds, later_epoch_median_seconds,"
            " first_epoch_excess_seconds, first_epoch_ratio, ends_at_final_epoch_end from fct_run_epoch_summaries",
        )
    }
    assert set(got) == set(FIRST)
    for run_id, first in FIRST.items():
        excess = 240 if run_id.startswith("translate") else 280
        ends = run_id.startswith("summarize")
        assert got[run_id] == (50, first, LATER[run_id], excess, pytest.approx(first / LATER[run_id]), ends)


def test_epoch_statistics_per_task(marts):
    got = {
        row[0]: row[1:]
        for row in rows(
            marts,
            "select task, runs_with_epochs, runs_ending_at_final_epoch_end, epochs, median_epochs_per_run,"
            " mean_epoch_seconds, p50_epoch_seconds, p90_epoch_seconds, max_epoch_seconds,"
            " mean_first_epoch_excess_seconds from agg_task_epochs",
        )
    }
    # translate: 49 x 370, 49 x 390, 49 x 410, 610, 630, 650 (n = 150); p50 at rank
    # 1 + 149 * 0.5 = 75.5, between ranks 75 and 76 (both 390) = 390; p90 at rank 135.1, between
    # ranks 135 and 136 (both 410) = 410; mean (1890 + 49 * 1170) / 150 = 394.8
    assert got["translate"] == (3, 0, 150, 50, pytest.approx(394.8), 390, 410, 650, 240)
    # summarize: 49 x 325, 49 x 365, 605, 645 (n = 100); p50 at rank 50.5 (ranks 50, 51: 365) = 365,
    # p90 at rank 90.1 (ranks 90, 91: 365) = 365;
    # mean (1250 + 49 * 690) / 100 = 350.6
    assert got["summarize"] == (2, 2, 100, 50, pytest.approx(350.6), 365, 365, 645, 280)


def test_epoch_statistics_per_collection(marts):
    # 250 epochs: 49 each of 325, 365, 370, 390, 410, then 605, 610, 630, 645, 650;
    # p50 at rank 1 + 249 * 0.5 = 125.5 (ranks 125, 126 are 370: ranks 99..147) = 370, p90 at rank
    # 225.1 (ranks 225, 226 are 410: ranks 197..245) = 410;
    # mean (49 * 1860 + 3140) / 250 = 377.12; first-epoch excess (3 * 240 + 2 * 280) / 5 = 256
    got = rows(
        marts,
        "select runs_with_epochs, runs_ending_at_final_epoch_end, epochs, median_epochs_per_run,"
        " mean_epoch_seconds, p50_epoch_seconds, p90_epoch_seconds, mean_first_epoch_excess_seconds"
        " from agg_collection_epochs",
    )
    assert got == [(5, 2, 250, 50, pytest.approx(377.12), 370, 410, pytest.approx(256))]


def test_epoch_positions(marts):
    got = dict(
        ((task, index), (runs, mean))
        for task, index, runs, mean in rows(
            marts, "select task, epoch_index, runs, mean_seconds from agg_task_epoch_positions"
        )
    )
    assert len(got) == 100
    assert got[("translate", 1)] == (3, pytest.approx(630)) and got[("translate", 7)] == (3, pytest.approx(390))
    assert got[("summarize", 1)] == (2, pytest.approx(625)) and got[("summarize", 50)] == (2, pytest.approx(345))


# kind: (intervals, zero-second intervals, seconds) per task, from the shape in the docstring
KINDS = {
    "translate": {
        "run_start -> checkpoint": (3, 0, 600 + 620 + 640),
        "checkpoint -> epoch_end": (150, 0, 150 * 10),
        "epoch_end -> checkpoint": (150, 0, 150 * 60),
        "checkpoint -> checkpoint": (147, 0, 49 * (300 + 320 + 340)),
        "checkpoint -> run_end": (3, 0, 3 * 30),
    },
    "summarize": {
        "run_start -> checkpoint": (2, 0, 600 + 640),
        "checkpoint -> epoch_end": (100, 0, 100 * 5),
        "epoch_end -> checkpoint": (98, 0, 98 * 120),
        "checkpoint -> checkpoint": (98, 0, 49 * (200 + 240)),
        "epoch_end -> run_end": (2, 2, 0),
    },
}


def test_time_by_kind_per_task(marts):
    for task, kinds in KINDS.items():
        assert sum(seconds for _, _, seconds in kinds.values()) == WALL[task]  # the kinds make up the wall time
        got = {
            row[0]: row[1:]
            for row in rows(
                marts,
                "select interval_kind, intervals, zero_second_intervals, total_seconds, share_of_wall"
                f" from agg_task_interval_kinds where task = '{task}'",
            )
        }
        expected = {
            kind: (count, zero, seconds, pytest.approx(seconds / WALL[task]))
            for kind, (count, zero, seconds) in kinds.items()
        }
        assert got == expected


def test_time_by_kind_per_collection(marts):
    got = dict(rows(marts, "select interval_kind, share_of_wall from agg_collection_interval_kinds"))
    wall = WALL["translate"] + WALL["summarize"]  # 94550
    # validation and saving after an epoch end: 9000 + 11760 = 20760 s of 94550, 21.96%
    assert got["epoch_end -> checkpoint"] == pytest.approx(20760 / wall)
    # training between saves: 47040 + 21560 = 68600 s, 72.55%
    assert got["checkpoint -> checkpoint"] == pytest.approx(68600 / wall)
    assert sum(got.values()) == pytest.approx(1.0)


def test_many_epoch_report_matches_golden_files(many_epochs_build, tmp_path):
    render_reports(many_epochs_build, tmp_path)
    with duckdb.connect(str(many_epochs_build), read_only=True) as connection:
        raw_dir = connection.execute("select raw_dir from dim_build").fetchone()[0]
    assert_matches_golden(tmp_path, GOLDEN, MISMATCHES / "many_epochs", {raw_dir: "<raw folder>"})
    assert (tmp_path / "many-epochs" / "epoch_durations.png").is_file()
