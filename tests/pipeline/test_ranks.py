"""Runs with several ranks (issue 22): the rank marts over the generated logs of
tests/support/ranks_fixture.py (committed in tests/generated/ranks), with every figure worked out by hand from
the fixture's plan:

straggler (4 ranks, 10 steps): each step starts on every rank at once; ranks 0, 1, 3 arrive at the
    checkpoint 10 s later, rank 2 1.5 s after them; the collective ends 0.5 s after the last
    arrival, so step k starts at 1 + 12 (k - 1) and rank 2 is last at all 10 checkpoints.
    Arrival spread 1.5 s at each checkpoint, 0 at the two epoch_ends (after the collective):
    arrival lost 10 x 1.5 = 15.0 s; ranks 0, 1, 3 each waited 15.0 s, rank 2 0 s.
    Busy time (forward; backward is a collective section): 100 s on ranks 0, 1, 3, 115 s on rank 2,
    so busy lost 15.0 s as well: the basis stays `arrival` (busy time is not larger).
    Wall: first start 0.0 (rank 0) to last end 121 + 1 + 0.03 (rank 3) = 122.03 s; lost share
    15 / 122.03. Straggling rank 2: last at 10 of 10 markers that tell the ranks apart.
dead-rank (64 ranks, 6 checkpoints 60 s apart): rank r arrives r ms after rank 0, so rank 63 is
    last everywhere and each spread is 0.063 s: arrival lost 6 x 0.063 = 0.378 s, 0.09% of the
    wall time 400.063 s, under the 1% a straggling rank needs: none is named. Rank 17 stops
    after step_3: it reached 4 markers (run_start, step_1..3), stopped early, and steps 4..6 and
    the run_end were reached by 63 ranks (1 missing).
busy (2 ranks, markers after the collective, a profile per checkpoint): every arrival at one
    moment (arrival lost 0); rank 1's forward grows by 8 s per interval against rank 0's 6 s, so
    busy lost 5 x 2 = 10 s, basis `busy_time`, rank 1 the busiest at all 5 profiles: straggling
    rank 1; share 10 / 50.5.
early-end (2 ranks): rank 1 fails at 15 s after step_1 while rank 0 goes on to step_2 at 20 s:
    the run's markers are run_start, step_1, step_2 (rank 1's run_end is before rank 0's later
    marker, so it ends nothing): the run is incomplete, rank 1 stopped early after its run_end.
resumed (2 ranks): both crash after step_2 (rank 1 there at 21 s) and resume at 100 s (rank 0
    first): markers run_start 0, step_1 10.5, step_2 21, run_start 100, step_3 111, step_4 121,
    run_end 125.5; one restart, downtime 100 - 21 = 79 s, active 125.5 - 79 = 46.5 s. Spreads
    0.5 + 1 + 1 + 1 = 3.5 s at the checkpoints, rank 1 last at all 4, 3.5 / 125.5 = 2.8% >= 1%:
    straggling rank 1.
solo-ranked / solo-plain: one process, with and without `"rank": 0, "world_size": 1`: the same
    figures, and neither is a run with ranks.
"""

from __future__ import annotations

import filecmp
import shutil

import duckdb
import pytest

from runlens.mart_catalog import compared_query
from runlens.report.render import render_reports
from tests.support import ranks_fixture
from tests.support.golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from tests.support.pipeline import DATABASE, PROJECT, build, rounded
from tests.support.prebuilt import Prebuilds, prebuilt

RAW = ranks_fixture.FOLDER


@prebuilt()
def ranks_build(builds: Prebuilds):
    """The marts over the committed rank fixture."""
    root = builds.mktemp("ranks")
    build(PROJECT, RAW, root / DATABASE)
    return root / DATABASE


@pytest.fixture(scope="module")
def marts(ranks_build):
    connection = duckdb.connect(str(ranks_build), read_only=True)
    yield connection
    connection.close()


def rows(marts, sql: str) -> list[tuple]:
    return marts.execute(sql).fetchall()


def test_the_committed_fixture_is_what_its_generator_writes(tmp_path):
    ranks_fixture.write(tmp_path)
    written = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(path.relative_to(RAW) for path in RAW.rglob("*") if path.is_file())
    assert written == committed
    assert all(filecmp.cmp(tmp_path / path, RAW / path, shallow=False) for path in written)


def test_the_ranks_of_a_run_are_one_run_and_no_line_is_a_duplicate(marts):
    assert rows(marts, "select count(*) from main.fct_duplicate_lines") == [(0,)]
    assert rows(marts, "select run_id, status from main.fct_runs order by run_id") == [
        ("busy", "completed"),
        ("dead-rank", "completed"),
        ("early-end", "incomplete"),
        ("resumed", "completed"),
        ("solo-plain", "completed"),
        ("solo-ranked", "completed"),
        ("straggler", "completed"),
    ]
    # 4 ranks x (run_start + 10 checkpoints + 2 epoch_ends + profile + run_end) = 60 events
    assert rows(marts, "select count(*), count(distinct rank) from main.fct_events where run_id = 'straggler'") == [
        (60, 4)
    ]


def test_a_run_with_ranks_takes_its_first_start_and_every_marker_at_its_last_rank(marts):
    wall, intervals, longest = rows(
        marts,
        "select wall_seconds, interval_count, longest_interval_seconds from main.fct_runs where run_id = 'straggler'",
    )[0]
    assert wall == pytest.approx(122.03, abs=1e-9)
    # run_start, 10 checkpoints, 2 epoch_ends, run_end: 14 markers, 13 intervals
    assert intervals == 13
    # run_start (0.0) to step_1 at rank 2's arrival 1 + 10 + 1.5
    assert longest == pytest.approx(12.5, abs=1e-9)
    step_5 = rows(
        marts,
        "select ended_at, seconds from main.fct_run_intervals where run_id = 'straggler' and to_marker = 'step_5'",
    )
    # step 5 starts at 1 + 48 = 49, rank 2 arrives at 49 + 11.5; the interval from step_4 (37 + 11.5)
    assert [seconds for _, seconds in step_5] == [pytest.approx(12.0, abs=1e-9)]


def test_arrival_spread_names_the_slow_rank_and_what_the_others_lost(marts):
    spreads = rows(
        marts,
        "select marker_label, arrival_spread_seconds, last_rank, ranks_reached from main.fct_run_marker_arrivals "
        "where run_id = 'straggler' and event_type = 'checkpoint' order by marker_index",
    )
    assert [(label, last, reached) for label, _, last, reached in spreads] == [
        (f"step_{step}", 2, 4) for step in range(1, 11)
    ]
    assert all(spread == pytest.approx(1.5, abs=1e-9) for _, spread, _, _ in spreads)
    ranks = rows(
        marts,
        "select rank, arrival_wait_seconds, times_last, busy_seconds, busy_gap_seconds, lost_waiting_seconds, "
        "lost_basis, stopped_early from main.fct_run_ranks where run_id = 'straggler' order by rank",
    )
    for rank, wait, times_last, busy, gap, lost, basis, stopped in ranks:
        slow = rank == 2
        assert wait == pytest.approx(0.0 if slow else 15.0, abs=1e-9)
        assert times_last == (10 if slow else 0)
        assert busy == pytest.approx(115.0 if slow else 100.0)
        assert gap == pytest.approx(0.0 if slow else 15.0)
        assert lost == pytest.approx(0.0 if slow else 15.0, abs=1e-9)
        assert (basis, stopped) == ("arrival", False)
    run = rows(
        marts,
        "select world_size, ranks_seen, arrival_lost_seconds, busy_lost_seconds, lost_basis, lost_to_slowest_seconds, "
        "lost_share, straggling_rank, straggling_rank_times, straggler_points, stopped_ranks "
        "from main.fct_run_rank_waiting where run_id = 'straggler'",
    )[0]
    assert run[:2] == (4, 4)
    assert run[2] == pytest.approx(15.0, abs=1e-9) and run[3] == pytest.approx(15.0)
    assert run[4] == "arrival" and run[5] == pytest.approx(15.0, abs=1e-9)
    assert run[6] == pytest.approx(15.0 / 122.03)
    assert run[7:] == (2, 10, 10, 0)


def test_busy_time_names_the_slow_rank_when_the_markers_come_after_the_collective(marts):
    run = rows(
        marts,
        "select arrival_lost_seconds, busy_lost_seconds, lost_basis, lost_share, straggling_rank, straggler_points "
        "from main.fct_run_rank_waiting where run_id = 'busy'",
    )[0]
    assert run[0] == 0.0 and run[1] == pytest.approx(10.0)
    assert run[2] == "busy_time" and run[3] == pytest.approx(10.0 / 50.5)
    assert run[4:] == (1, 5)
    assert rows(
        marts, "select rank, times_busiest, lost_basis from main.fct_run_ranks where run_id = 'busy' order by rank"
    ) == [(0, 0, "busy_time"), (1, 5, "arrival")]


def test_a_rank_that_dies_is_named_with_the_marker_it_last_reached(marts):
    run = rows(
        marts,
        "select world_size, ranks_seen, stopped_ranks, first_stopped_rank, silent_ranks, straggling_rank, "
        "arrival_lost_seconds, wall_seconds from main.fct_run_rank_waiting where run_id = 'dead-rank'",
    )[0]
    assert run[:6] == (64, 64, 1, 17, 0, None)
    assert run[6] == pytest.approx(0.378, abs=1e-9) and run[7] == pytest.approx(400.063, abs=1e-9)
    assert rows(
        marts,
        "select rank, markers_reached, last_marker_label, stopped_early from main.fct_run_ranks "
        "where run_id = 'dead-rank' and (stopped_early or rank in (16, 18)) order by rank",
    ) == [(16, 8, "run_end", False), (17, 4, "step_3", True), (18, 8, "run_end", False)]
    missing = rows(
        marts,
        "select marker_label, ranks_reached, ranks_missing from main.fct_run_marker_arrivals "
        "where run_id = 'dead-rank' order by marker_index",
    )
    assert missing == [
        ("run_start", 64, 0),
        ("step_1", 64, 0),
        ("step_2", 64, 0),
        ("step_3", 64, 0),
        ("step_4", 63, 1),
        ("step_5", 63, 1),
        ("step_6", 63, 1),
        ("run_end", 63, 1),
    ]


def test_a_rank_that_fails_while_another_goes_on_ends_nothing(marts):
    assert rows(marts, "select status, interval_count from main.fct_runs where run_id = 'early-end'") == [
        ("incomplete", 2)
    ]
    assert rows(
        marts,
        "select rank, last_marker_label, run_end_status, stopped_early from main.fct_run_ranks "
        "where run_id = 'early-end' order by rank",
    ) == [(0, "step_2", None, False), (1, "run_end", "failed: RuntimeError", True)]
    assert rows(
        marts,
        "select marker_index, ranks_reached from main.fct_run_marker_arrivals "
        "where run_id = 'early-end' and marker_label = 'run_end'",
    ) == [(None, 1)]


def test_a_resumed_run_with_ranks_keeps_its_restart_and_downtime(marts):
    run = rows(
        marts,
        "select wall_seconds, restarts, downtime_seconds, active_seconds, interval_count from main.fct_runs "
        "where run_id = 'resumed'",
    )[0]
    assert run == pytest.approx((125.5, 1, 79.0, 46.5, 6))
    assert rows(
        marts,
        "select label, is_downtime from main.fct_run_intervals where run_id = 'resumed' order by interval_index",
    ) == [
        ("run_start -> step_1", False),
        ("step_1 -> step_2", False),
        ("step_2 -> run_start", True),
        ("run_start -> step_3", False),
        ("step_3 -> step_4", False),
        ("step_4 -> run_end", False),
    ]
    distributed = rows(
        marts,
        "select arrival_lost_seconds, lost_share, straggling_rank, straggler_points from main.fct_run_rank_waiting "
        "where run_id = 'resumed'",
    )[0]
    assert distributed[0] == pytest.approx(3.5, abs=1e-9) and distributed[1] == pytest.approx(3.5 / 125.5)
    assert distributed[2:] == (1, 4)


def test_per_task_waiting_sums_the_runs_with_ranks(marts):
    assert rows(
        marts,
        "select collection, task, distributed_runs, runs_with_straggling_rank, runs_with_stopped_ranks, "
        "round(wall_seconds, 6), round(lost_to_slowest_seconds, 6) from main.agg_task_rank_waiting order by task",
    ) == [
        # straggler 122.03 + dead-rank 400.063; lost 15 + 0.378
        ("ranks-a", "ddp", 2, 1, 1, 522.093, 15.378),
        # early-end has no wall time: its lost time stays out of both sums
        ("ranks-a", "edge", 1, 0, 1, None, None),
        ("ranks-a", "lightning", 1, 1, 0, 50.5, 10.0),
        ("ranks-a", "resumed", 1, 1, 0, 125.5, 3.5),
    ]


def test_a_single_rank_that_names_its_rank_is_an_ordinary_run(marts):
    columns = (
        "status, wall_seconds, tail_seconds, interval_count, longest_interval_label, longest_interval_seconds, "
        "restarts, active_seconds"
    )
    ranked, plain = (
        rows(marts, f"select {columns} from main.fct_runs where run_id = '{run_id}'")[0]
        for run_id in ("solo-ranked", "solo-plain")
    )
    # run_start 0, step_100 30, epoch_end 31 (step 100), step_200 62.5, run_end 70: the checkpoint of
    # step 200 after the last epoch_end says training went on past it, so there is no final tail
    assert ranked == plain == ("completed", 70.0, None, 4, "epoch_end -> step_200", 31.5, 0, 70.0)
    assert rows(marts, "select count(*) from main.fct_run_rank_waiting where run_id like 'solo%'") == [(0,)]


def test_a_rank_that_says_no_process_is_rejected_with_its_line(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    start = '{"run_id":"r","event":"run_start","ts":"2025-01-01T00:00:00Z","collection":"c","task":"t"'
    lines = [
        start + "}",
        start + ',"rank":-1}',  # 2: below 0
        start + ',"rank":"1"}',  # 3: a string
        start + ',"rank":1.5}',  # 4: not an integer
        start + ',"world_size":0}',  # 5: no process at all
        start + ',"rank":4,"world_size":4}',  # 6: ranks of 4 processes are 0..3
        '{"run_id":"r","event":"run_end","ts":"2025-01-01T00:01:00Z","rank":null,"world_size":null}',  # absent
    ]
    (raw / "r.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    database = tmp_path / DATABASE
    build(PROJECT, raw, database)
    with duckdb.connect(str(database), read_only=True) as connection:
        rejected = connection.execute(
            "select line_number, reject_reason from main.fct_rejected_lines order by line_number"
        ).fetchall()
        accepted = connection.execute("select line_number, rank from main.fct_events order by line_number").fetchall()
    assert rejected == [(line_number, "bad_rank") for line_number in range(2, 7)]
    assert accepted == [(1, 0), (7, 0)]


def test_the_ranks_section_and_the_index_flag_match_the_golden_pages(ranks_build, tmp_path):
    """The pages were read line by line before they were committed: the Ranks section shows only
    on the collection with ranks (ranks-b's single-rank runs have none), its answer names rank 1
    of `busy` (the largest share lost to a straggling rank: 10 / 50.5 = 19.8%) and rank 17 of
    `dead-rank` stopping after step_3, its table names rank 1 of `early-end` by its failed run_end,
    and the index lists the three runs with a straggling rank."""
    render_reports(ranks_build, tmp_path)
    with duckdb.connect(str(ranks_build), read_only=True) as connection:
        raw_dir = connection.execute("select raw_dir from dim_build").fetchone()[0]
    assert_matches_golden(tmp_path, GOLDEN_ROOT / "ranks", MISMATCHES / "ranks", {raw_dir: "<raw folder>"})
    assert (tmp_path / "ranks-a" / "rank_arrival_spread.png").is_file()
    assert not (tmp_path / "ranks-b" / "rank_arrival_spread.png").exists()
    single = (tmp_path / "ranks-b" / "profile.md").read_text(encoding="utf-8")
    assert "## Ranks" not in single and "slowest rank" not in single


RANK_MARTS = (
    "fct_runs",
    "fct_run_intervals",
    "fct_run_marker_arrivals",
    "fct_run_ranks",
    "fct_run_rank_waiting",
    "agg_task_rank_waiting",
    "agg_collection_rank_waiting",
)


def mart_rows(database) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return {table: rounded(connection.sql(compared_query(table)).fetchall()) for table in RANK_MARTS}


def test_a_rank_file_that_arrives_later_refreshes_its_run_as_a_full_build_would(tmp_path):
    """The straggler's rank 3 file arrives after a first build of ranks 0 to 2 (and a rank of
    busy loses its last lines): the incremental refresh recomputes both runs and gives exactly the
    marts of a full build of the final folder."""
    raw = tmp_path / "raw"
    shutil.copytree(RAW, raw)
    late = raw / "straggler" / "straggler.rank3.jsonl"
    held_back = late.read_text(encoding="utf-8")
    late.unlink()
    incremental = tmp_path / "incremental" / DATABASE
    build(PROJECT, raw, incremental)
    with duckdb.connect(str(incremental), read_only=True) as connection:
        # three ranks: rank 2 still last at every checkpoint, 3 ranks seen
        assert connection.execute(
            "select ranks_seen, straggling_rank from fct_run_rank_waiting where run_id = 'straggler'"
        ).fetchall() == [(3, 2)]
    late.write_text(held_back, encoding="utf-8")
    busy = raw / "busy.rank1.jsonl"
    busy.write_text("".join(busy.read_text(encoding="utf-8").splitlines(keepends=True)[:-3]), encoding="utf-8")
    build(PROJECT, raw, incremental)
    full = tmp_path / "full" / DATABASE
    build(PROJECT, raw, full, "--full-refresh")
    assert mart_rows(incremental) == mart_rows(full)
    with duckdb.connect(str(incremental), read_only=True) as connection:
        assert connection.execute(
            "select ranks_seen, straggling_rank from fct_run_rank_waiting where run_id = 'straggler'"
        ).fetchall() == [(4, 2)]
        # busy's rank 1 lost its last profile, checkpoint and run_end: it stopped after step_4
        assert connection.execute(
            "select last_marker_label, stopped_early from fct_run_ranks where run_id = 'busy' and rank = 1"
        ).fetchall() == [("step_4", True)]
