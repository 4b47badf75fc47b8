"""The goodput breakdown (issue 31) over the generated logs of tests/support/goodput_fixture.py (committed in
tests/generated/goodput), each run's seconds planted one bucket at a time: the fixture's docstring
works every figure out by hand. That the buckets of every run of every fixture add up to its wall
time is a data test of every build (data-tests/singular/assert_goodput_buckets_sum_to_wall_time.sql).
"""

from __future__ import annotations

import filecmp

import duckdb
import pytest

from runlens.report.render import render_reports
from tests.support import goodput_fixture
from tests.support.golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from tests.support.pipeline import DATABASE, PROJECT, build, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt

RAW = goodput_fixture.FOLDER
BUCKETS = goodput_fixture.BUCKETS
# run -> (wall, {bucket: seconds}), from the plans in tests/support/goodput_fixture.py; a bucket not named is 0
PLANTED = {
    # two profiles: its sections on its timeline (tests/support/goodput_fixture.py works them out)
    "resume": (
        4500,
        {
            "productive": 1200 + 3500 / 9,
            "start_up": 200,
            "checkpoint_restore": 50,
            "checkpoint_save": 64 + 280 / 9,
            "evaluation": 40 + 70 / 3,
            "data_loading": 140 / 3,
            "down": 400,
            "redone": 500,
            "final_tail": 300,
            "unattributed": 1256,
        },
    ),
    # never resumed: the training after its last checkpoint is lost, not redone
    "failed": (800, {"productive": 470, "start_up": 30, "lost": 300}),
    "ranks": (300, {"productive": 220, "start_up": 20, "rank_waiting": 60}),
    "live": (1000, {"productive": 960, "start_up": 40}),
    "gone": (260, {"productive": 190, "start_up": 10, "lost": 60}),
    # the silence of a stalled run to the as-of time is in a bucket
    "stalled": (4300, {"productive": 980, "start_up": 20, "silent": 3300}),
    # training went on past the last epoch_end (checkpoint 30 after epoch_end 25): no final tail
    "inferred": (700, {"productive": 500, "down": 150, "redone": 50}),
}
GPUS = {"resume": 2, "failed": 1, "ranks": 4, "live": 1, "gone": 1, "stalled": 1, "inferred": 1}


@prebuilt()
def goodput_build(builds: Prebuilds):
    """The marts over the committed goodput fixture."""
    root = builds.mktemp("goodput")
    build(PROJECT, RAW, root / DATABASE)
    return root / DATABASE


@pytest.fixture(scope="module")
def marts(goodput_build):
    connection = duckdb.connect(str(goodput_build), read_only=True)
    yield connection
    connection.close()


def bucket_columns() -> str:
    return ", ".join(f"{bucket}_seconds" for bucket in BUCKETS)


def test_the_committed_fixture_is_what_its_generator_writes(tmp_path):
    goodput_fixture.write(tmp_path)
    written = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(path.relative_to(RAW) for path in RAW.rglob("*") if path.is_file())
    assert written == committed
    assert all(filecmp.cmp(tmp_path / path, RAW / path, shallow=False) for path in written)


def test_every_run_gives_the_seconds_planted_in_each_bucket(marts):
    found = {
        run_id: (wall, dict(zip(BUCKETS, figures, strict=True)))
        for run_id, wall, *figures in marts.execute(
            f"select run_id, wall_seconds, {bucket_columns()} from fct_run_goodput"
        ).fetchall()
    }
    expected = {
        run_id: (wall, {bucket: buckets.get(bucket, 0) for bucket in BUCKETS})
        for run_id, (wall, buckets) in PLANTED.items()
    }
    assert {run_id: (pytest.approx(wall), figures) for run_id, (wall, figures) in found.items()} == {
        run_id: (wall, pytest.approx(figures, abs=1e-6)) for run_id, (wall, figures) in expected.items()
    }


def test_what_could_not_be_measured_is_counted(marts):
    rows = marts.execute(
        "select run_id, status, live_status, sessions, unmeasured_start_ups, inferred_restores,"
        " has_sections, has_training_sections, has_ranks from fct_run_goodput order by run_id"
    ).fetchall()
    assert rows == [
        ("failed", "failed", None, 1, 0, 0, False, False, False),
        # a profile without sections: all the rest is productive, an upper bound
        ("gone", "incomplete", "abandoned", 1, 0, 0, True, False, False),
        # no train_start: both start-ups unmeasured, the restored checkpoint inferred
        ("inferred", "completed", None, 2, 2, 1, False, False, False),
        ("live", "incomplete", "running", 1, 0, 0, False, False, False),
        ("ranks", "completed", None, 1, 0, 0, False, False, True),
        # train_start named step 200, the checkpoint it restored
        ("resume", "completed", None, 2, 0, 0, True, True, False),
        ("stalled", "incomplete", "stalled", 1, 0, 0, False, False, False),
    ]


def test_each_rank_spends_the_run_s_training_time_its_own_way(marts):
    """`ranks`: rank 0 reached both checkpoints 30 s before rank 1, so it waited 60 s of the 280 s
    of training time; rank 1 waited for nobody. The timeline (start-up 20 s) is the run's."""
    rows = marts.execute(
        "select rank, wall_seconds, start_up_seconds, rank_waiting_seconds, productive_seconds"
        " from fct_run_rank_goodput where run_id = 'ranks' order by rank"
    ).fetchall()
    assert rows == [(0, 300, 20, 60, 220), (1, 300, 20, 0, 280)]


def test_goodput_and_gpu_hours_of_a_run(marts):
    rows = dict(marts.execute("select run_id, [goodput, gpu_hours] from fct_run_goodput").fetchall())
    assert rows["resume"] == pytest.approx([(1200 + 3500 / 9) / 4500, 2 * 4500 / 3600])
    assert rows["ranks"] == pytest.approx([220 / 300, 4 * 300 / 3600])


def test_the_collection_and_its_tasks_sum_their_runs(marts):
    wall = sum(wall for wall, _ in PLANTED.values())  # 11,860 s
    gpu_seconds = sum(GPUS[run_id] * wall for run_id, (wall, _) in PLANTED.items())  # 17,260
    collection = {
        bucket: (seconds, share, gpu_hours, total, runs)
        for bucket, seconds, share, gpu_hours, total, runs in marts.execute(
            "select bucket, seconds, share_of_wall, gpu_hours, total_gpu_hours, runs"
            " from agg_collection_goodput where collection = 'goodput-a' order by bucket_order"
        ).fetchall()
    }
    assert list(collection) == list(BUCKETS)
    for bucket in BUCKETS:
        seconds = sum(buckets.get(bucket, 0) for _, buckets in PLANTED.values())
        bucket_gpu_seconds = sum(GPUS[run_id] * buckets.get(bucket, 0) for run_id, (_, buckets) in PLANTED.items())
        assert collection[bucket] == pytest.approx(
            (seconds, seconds / wall, bucket_gpu_seconds / 3600, gpu_seconds / 3600, 7)
        )
    # productive: 1,588.9 (resume: 1,200 + 3,500 / 9) + 470 + 220 + 960 + 190 + 980 + 500 of 11,860 s;
    # GPU-seconds 2 x 1,588.9 + 470 + 880 + 960 + 190 + 980 + 500 of 17,260
    resume = 1200 + 3500 / 9
    productive = resume + 3320
    assert collection["productive"][:3] == pytest.approx((productive, productive / 11860, (2 * resume + 3980) / 3600))
    tasks = dict(
        marts.execute(
            "select task, seconds from agg_task_goodput where collection = 'goodput-a' and bucket = 'redone'"
        ).fetchall()
    )
    assert tasks == {"resume": 500, "failed": 0, "ranks": 0, "live": 0, "gone": 0, "stalled": 0, "inferred": 50}


def test_a_var_maps_a_section_to_another_bucket(tmp_path):
    """The var wins over the seed: train_step as data loading leaves the run no training section,
    so what is left of the kept training (3,050) after the saving, evaluation and data loading timed
    in it (95.1, 63.3 and 46.7 + 1,588.9 of train_step) is productive, an upper bound: 1,256."""
    build(PROJECT, RAW, tmp_path / DATABASE, "--vars", "{goodput_section_buckets: {train_step: data_loading}}")
    with duckdb.connect(str(tmp_path / DATABASE), read_only=True) as connection:
        row = connection.execute(
            "select data_loading_seconds, productive_seconds, unattributed_seconds, has_training_sections"
            " from fct_run_goodput where run_id = 'resume'"
        ).fetchone()
    assert row == (pytest.approx(140 / 3 + 1200 + 3500 / 9, abs=1e-6), pytest.approx(1256, abs=1e-6), 0, False)


def test_a_var_that_names_no_bucket_stops_the_build_with_one_line(tmp_path):
    result = run_dbt(
        PROJECT, RAW, tmp_path / DATABASE, "build", "--vars", "{goodput_section_buckets: {train_step: gpu}}"
    )
    assert result.returncode != 0
    assert (
        "runlens: goodput_section_buckets maps 'train_step' to 'gpu': use one of training, data_loading,"
        " checkpoint_save, checkpoint_restore, evaluation" in result.stdout
    )


def test_the_goodput_answer_section_and_index_match_the_golden_pages(goodput_build, tmp_path):
    """The pages were read line by line before they were committed: the answer opens with the
    goodput in GPU-hours (every run names its GPUs: 6,700 of 12,960 GPU-seconds, 51.7% of 3.60
    GPU-hours) and the costs largest first, disruptions (down 400 + 150 s, redone 500 + 300 + 60 +
    50 s, times each run's GPUs) first; the Goodput section has a row per task, the chart, and
    names the runs whose start-up (`inferred`) or sections (all but `resume`) were not measured."""
    render_reports(goodput_build, tmp_path)
    with duckdb.connect(str(goodput_build), read_only=True) as connection:
        raw_dir = connection.execute("select raw_dir from dim_build").fetchone()[0]
    assert_matches_golden(tmp_path, GOLDEN_ROOT / "goodput", MISMATCHES / "goodput", {raw_dir: "<raw folder>"})
    assert (tmp_path / "goodput-a" / "goodput_by_task.png").is_file()


def test_a_run_end_an_importer_inferred_leaves_the_final_tail_unmeasured(tmp_path):
    """Two runs, each with an epoch_end at 100 s and a run_end at the same moment. `inferred`'s
    run_end was taken from its last event (TensorBoard's wording): when it really ended is not
    known, so its tail is not measured, neither 0 nor counted. `rounded`'s run_end is a logged end,
    approximate only by its whole-second clock (a text log's wording): its tail is measured, 0 s."""
    raw = tmp_path / "raw"
    raw.mkdir()
    reasons = {
        "inferred": "run_end taken from the last TensorBoard event: work after the last logged scalar is not seen",
        "rounded": "run_end from a log line with whole-second times",
    }
    for run_id, reason in reasons.items():
        lines = goodput_fixture.run_lines(
            run_id,
            goodput_fixture.BASE,
            [
                (0, "run_start", {"collection": "ends", "task": "t"}),
                (50, "checkpoint", {"step": 10}),
                (100, "epoch_end", {"epoch": 0, "step": 10}),
                (100, "run_end", {"status": "completed", "is_approximate": True, "approximation": reason}),
            ],
        )
        (raw / f"{run_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (raw / "runlens_as_of.txt").write_text("2025-03-10T12:00:00Z\n", encoding="utf-8")
    build(PROJECT, raw, tmp_path / DATABASE)
    with duckdb.connect(str(tmp_path / DATABASE), read_only=True) as connection:
        rows = connection.execute(
            "select runs.run_id, runs.tail_seconds, goodput.is_final_tail_measured, goodput.productive_seconds"
            " from fct_runs as runs inner join fct_run_goodput as goodput on runs.run_id = goodput.run_id"
            " order by runs.run_id"
        ).fetchall()
        unmeasured = connection.execute(
            "select runs_unmeasured from agg_collection_goodput where bucket = 'final_tail'"
        ).fetchall()
    assert rows == [("inferred", None, False, 100.0), ("rounded", 0.0, True, 100.0)]
    assert unmeasured == [(1,)]
