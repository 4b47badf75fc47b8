"""Sections on the timeline (issue 49) over the generated logs of tests/support/timeline_fixture.py
(committed in tests/generated/timeline): every run writes cumulative profiles, and the fixture's
docstring works out by hand what each stretch between two profiles took, where it lies on the run's
timeline, what each interval was spent on and every goodput bucket. That every interval's rows add up
to its seconds and that every run's buckets add up to its wall time are data tests of every build.
"""

from __future__ import annotations

import filecmp

import duckdb
import pytest

from tests.support import goodput_fixture, timeline_fixture
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt

RAW = timeline_fixture.FOLDER
BUCKETS = goodput_fixture.BUCKETS
# run -> (wall, {bucket: seconds}), from the fixture's docstring; a bucket not named is 0
PLANTED = {
    # the save and the eval timed in the final tail stay in the tail, not carved from training again
    "steady": (
        270,
        {"productive": 160, "start_up": 10, "checkpoint_save": 5, "data_loading": 20, "final_tail": 60},
    ),
    # the training timed after the checkpoint it went back to is in redone only; the restore in start-up
    "crashy": (
        520,
        {
            "productive": 220,
            "start_up": 15,
            "checkpoint_restore": 15,
            "checkpoint_save": 5,
            "down": 30,
            "redone": 170,
            "final_tail": 20,
        },
    ),
    # never resumed: what it trained after its last checkpoint is lost
    "failing": (130, {"productive": 40, "start_up": 5, "lost": 80}),
    # stalled: its silence to the as-of time is in a bucket
    "stuck": (1150, {"productive": 120, "start_up": 10, "silent": 1000}),
    # one profile: its sections are carved from the training time, as before
    "long": (2000, {"productive": 1500, "evaluation": 300}),
}
UNATTRIBUTED = {"steady": 15, "crashy": 45, "failing": 5, "stuck": 20, "long": 200}
# run -> interval label -> {section: seconds}; `unattributed` is the profiled time in no section
INTERVALS = {
    "steady": {
        "run_start -> step_100": {"train_step": 80, "data_loading": 10, "checkpoint_save": 5, "unattributed": 15},
        "step_100 -> epoch_end": {"train_step": 80, "data_loading": 10, "unattributed": 10},
        "epoch_end -> run_end": {"checkpoint_save": 5, "eval": 40, "unattributed": 15},
    },
    "crashy": {
        "run_start -> step_100": {"train_step": 80, "unattributed": 20},
        "step_100 -> step_200": {"train_step": 80, "checkpoint_save": 10, "unattributed": 10},
        "run_start -> step_200": {"train_step": 80, "restore": 15, "checkpoint_save": 5, "unattributed": 20},
        "step_200 -> epoch_end": {"train_step": 60, "unattributed": 20},
        "epoch_end -> run_end": {"eval": 10, "unattributed": 10},
    },
    "failing": {
        "run_start -> step_10": {"train_step": 40, "unattributed": 10},
        "step_10 -> run_end": {"train_step": 60, "eval": 10, "unattributed": 10},
    },
    "stuck": {"run_start -> step_100": {"train_step": 80, "unattributed": 20}},
}


@prebuilt()
def timeline_build(builds: Prebuilds):
    """The marts over the committed timeline fixture."""
    root = builds.mktemp("timeline")
    build(PROJECT, RAW, root / DATABASE)
    return root / DATABASE


@pytest.fixture(scope="module")
def marts(timeline_build):
    connection = duckdb.connect(str(timeline_build), read_only=True)
    yield connection
    connection.close()


def test_the_committed_fixture_is_what_its_generator_writes(tmp_path):
    timeline_fixture.write(tmp_path)
    written = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(path.relative_to(RAW) for path in RAW.rglob("*") if path.is_file())
    assert written == committed
    assert all(filecmp.cmp(tmp_path / path, RAW / path, shallow=False) for path in written)


def test_every_run_gives_the_seconds_worked_out_for_each_bucket(marts):
    columns = ", ".join(f"{bucket}_seconds" for bucket in BUCKETS)
    found = {
        run_id: (wall, dict(zip(BUCKETS, figures, strict=True)))
        for run_id, wall, *figures in marts.execute(
            f"select run_id, wall_seconds, {columns} from fct_run_goodput"
        ).fetchall()
    }
    expected = {}
    for run_id, (wall, buckets) in PLANTED.items():
        figures = {bucket: buckets.get(bucket, 0) for bucket in BUCKETS}
        figures["unattributed"] = UNATTRIBUTED[run_id]
        assert sum(figures.values()) == wall  # the hand-worked buckets add up
        expected[run_id] = (wall, figures)
    assert {run_id: (pytest.approx(wall, abs=1e-3), figures) for run_id, (wall, figures) in found.items()} == {
        run_id: (wall, pytest.approx(figures, abs=1e-3)) for run_id, (wall, figures) in expected.items()
    }


def test_only_runs_with_several_profiles_have_their_sections_on_the_timeline(marts):
    rows = dict(marts.execute("select run_id, is_sections_on_timeline from fct_run_goodput").fetchall())
    assert rows == {"steady": True, "crashy": True, "failing": True, "stuck": True, "long": False}


def test_every_interval_gives_what_its_sections_took(marts):
    found: dict[str, dict[str, dict[str, float]]] = {}
    for run_id, label, section, seconds in marts.execute(
        "select run_id, label, section, seconds from fct_run_interval_sections where seconds > 0"
    ).fetchall():
        found.setdefault(run_id, {}).setdefault(label, {})[section] = seconds
    assert found == {
        run_id: {label: pytest.approx(sections, abs=1e-3) for label, sections in intervals.items()}
        for run_id, intervals in INTERVALS.items()
    }


def test_an_interval_s_rows_add_up_to_its_seconds(marts):
    rows = marts.execute(
        "select run_id, interval_index, sum(seconds), max(interval_seconds) from fct_run_interval_sections"
        " group by run_id, interval_index"
    ).fetchall()
    assert len(rows) == 3 + 5 + 2 + 1  # steady, crashy (its downtime aside), failing, stuck
    assert all(total == pytest.approx(seconds, abs=1e-3) for _, _, total, seconds in rows)


def test_a_resume_carries_the_writer_s_totals_over_and_a_fresh_process_counts_from_zero(tmp_path):
    """crashy's first profile after the restart says wall 370 at 100 s after its run_start: nearer the
    previous profile's 270 + 100 than 100 alone, so carried over (train 276 - 216 = 60). Written by a
    process that counts from 0 (wall 100, train 60), the stretch takes the same 60 s of training."""
    lines = timeline_fixture.crashy()
    marker = '"wall_seconds":370'
    index = next(i for i, line in enumerate(lines) if marker in line)
    fresh = list(lines)
    fresh[index] = fresh[index].split('"wall_seconds"')[0] + (
        '"wall_seconds":100,"sections":{"train_step":60,"restore":15},"final":false}'
    )
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "crashy.jsonl").write_text("\n".join(fresh[: index + 1]) + "\n", encoding="utf-8")
    (raw / "runlens_as_of.txt").write_text("2025-03-10T12:00:00Z\n", encoding="utf-8")
    build(PROJECT, raw, tmp_path / DATABASE)
    with duckdb.connect(str(tmp_path / DATABASE), read_only=True) as connection:
        rows = connection.execute(
            "select is_carried_over, section, seconds from int_run_profile_stretches"
            " where run_id = 'crashy' and session_index = 2 order by section"
        ).fetchall()
    assert rows == [(False, "restore", 15.0), (False, "train_step", 60.0)]


def test_a_collection_against_its_baseline_part_by_part(tmp_path):
    """timeline-b (one run, `steady` with an eval of 60 s in its final tail [210, 290] instead of 40)
    against timeline-a (its analyzed runs with interval sections: steady and crashy). The baseline's
    final tails: steady save 5, eval 40, in no section 15; crashy eval 10, in no section 10: per run
    save 2.5, eval 25, in no section 12.5, the part 40. Here: save 5, eval 60, in no section 15, the
    part 80: 40 s longer per run, of which eval 35, save 2.5 and in no section 2.5."""
    raw = tmp_path / "raw"
    timeline_fixture.write(raw)
    lines = [
        line.replace('"steady"', '"steady-b"').replace(timeline_fixture.COLLECTION, "timeline-b")
        for line in timeline_fixture.steady()
    ]
    lines[-2] = (
        lines[-2]
        .replace('"eval":40', '"eval":60')
        .replace("00:04:30", "00:04:50")
        .replace('"wall_seconds":270', '"wall_seconds":290')
    )
    lines[-1] = lines[-1].replace("00:04:30", "00:04:50")
    assert '"eval":60' in lines[-2] and "00:04:50" in lines[-1]
    (raw / "steady-b.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (raw / "runlens_collections.csv").write_text(
        "collection,title,baseline_collection,design_url,results_url\n"
        "timeline-a,Timeline,,,\ntimeline-b,Timeline b,timeline-a,,\n",
        encoding="utf-8",
    )
    build(PROJECT, raw, tmp_path / DATABASE)
    with duckdb.connect(str(tmp_path / DATABASE), read_only=True) as connection:
        rows = connection.execute(
            "select section, runs, baseline_runs, mean_seconds_per_run, baseline_mean_seconds_per_run,"
            " change_seconds, part_mean_seconds, baseline_part_mean_seconds, part_change_seconds"
            " from cmp_collection_interval_sections"
            " where collection = 'timeline-b' and wall_time_part = 'final_tail' order by section"
        ).fetchall()
    assert rows == [
        ("checkpoint_save", 1, 2, 5.0, 2.5, 2.5, 80.0, 40.0, 40.0),
        ("eval", 1, 2, 60.0, 25.0, 35.0, 80.0, 40.0, 40.0),
        ("unattributed", 1, 2, 15.0, 12.5, 2.5, 80.0, 40.0, 40.0),
    ]
