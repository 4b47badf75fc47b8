"""Each rule that chooses a report sentence, on both sides of its threshold (report/rules.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runlens.report import rules
from runlens.report.data import (
    CollectionProfile,
    Comparison,
    DataQuality,
    EpochSummary,
    IntervalKind,
    LaterWindows,
    LongestInterval,
    MarkerApproximation,
    ProfileSection,
    Snapshot,
    TaskRuntime,
)

SNAPSHOT = Snapshot(
    collection="c",
    title="c",
    design_url=None,
    results_url=None,
    baseline_collection=None,
    runs_analyzed=10,
    runs_excluded=0,
    runs_failed=0,
    runs_incomplete=0,
    runs_clock_skew=0,
    measurement_source="event_log",
    mean_wall_hours=1.0,
    median_wall_hours=1.0,
    min_wall_hours=0.5,
    max_wall_hours=2.0,
    mean_pre_tail_hours=0.8,
    mean_tail_hours=0.2,
    mean_tail_minutes=12.0,
    max_tail_minutes=30.0,
    mean_tail_share_percent=20.0,
    mean_pre_tail_share_percent=80.0,
)
QUALITY = DataQuality(
    files=1,
    unreadable_files=0,
    physical_lines=10,
    blank_lines=0,
    lines_read=10,
    accepted=10,
    duplicates=0,
    other_events=0,
    rejected=0,
)


def task(name: str, mean_hours: float, tail_share: float | None = 10.0, ratio: float | None = 1.0) -> TaskRuntime:
    return TaskRuntime(name, 3, 0, mean_hours, mean_hours, mean_hours, mean_hours, 0.1, tail_share, ratio)


def profile(**changes) -> CollectionProfile:
    snapshot = replace(SNAPSHOT, **changes.pop("snapshot", {}))
    base = CollectionProfile(
        snapshot=snapshot,
        tasks=[],
        excluded=[],
        longest_intervals=[],
        later_windows=None,
        comparison=None,
        config_differences=[],
        task_comparisons=[],
        profile_sections=[],
        data_quality=QUALITY,
        reject_reasons=[],
        other_events=[],
        likely_typos=[],
        approximations=[],
    )
    return replace(base, **changes)


@pytest.mark.parametrize(
    ("pre", "tail", "key"),
    [
        (75.0, 25.0, "mostly_before_final_epoch_end"),
        (74.99, 25.01, "split_between_both"),
        (49.99, 50.01, "mostly_in_final_tail"),
        (50.01, 49.99, "split_between_both"),
    ],
)
def test_coarse_split(pre, tail, key):
    found = rules.coarse_split(profile(snapshot={"mean_pre_tail_share_percent": pre, "mean_tail_share_percent": tail}))
    assert found.key == key


def test_coarse_split_needs_both_shares():
    assert rules.coarse_split(profile(snapshot={"mean_tail_share_percent": None})) is None


@pytest.mark.parametrize(("runs", "key"), [(6, "usually_longest"), (5, "no_usual_longest")])
def test_longest_interval_is_usual_only_in_more_than_half_the_runs(runs, key):
    top = LongestInterval("run_start -> step_200", runs, 10, 13.6, 15.0)
    assert rules.longest_interval(profile(longest_intervals=[top])).key == key


@pytest.mark.parametrize(("summed", "fires"), [(13.7, True), (13.6, False)])
def test_later_windows_outweigh_the_opening_block(summed, fires):
    top = LongestInterval("run_start -> step_200", 8, 10, 13.6, 15.0)
    windows = LaterWindows(7, 1.0, 3.0, summed)
    found = rules.later_windows(profile(longest_intervals=[top], later_windows=windows))
    assert (found is not None) == fires


def test_later_windows_compare_only_with_an_opening_block():
    top = LongestInterval("step_200 -> step_400", 8, 10, 1.0, 1.0)
    assert rules.later_windows(profile(longest_intervals=[top], later_windows=LaterWindows(7, 1, 3, 50))) is None


@pytest.mark.parametrize(("share", "key"), [(5.0, "tail_not_negligible"), (4.99, "tail_negligible")])
def test_tail_weight(share, key):
    assert rules.tail_weight(profile(snapshot={"mean_tail_share_percent": share})).key == key


@pytest.mark.parametrize(("ratio", "key"), [(1.5, "task_drives_variation"), (1.49, "tasks_similar")])
def test_task_spread(ratio, key):
    tasks = [task("slow", 1.5, ratio=ratio), task("fast", 1.0, ratio=ratio)]
    assert rules.task_spread(profile(tasks=tasks)).key == key


def test_task_spread_needs_two_tasks():
    assert rules.task_spread(profile(tasks=[task("only", 1.0)])) is None


@pytest.mark.parametrize(("slowest_share", "fires"), [(25.0, True), (15.0, True), (25.01, False), (14.99, False)])
def test_slow_throughout(slowest_share, fires):
    tasks = [task("slow", 2.0, tail_share=slowest_share), task("fast", 1.0)]
    found = rules.slow_throughout(profile(tasks=tasks, snapshot={"mean_tail_share_percent": 20.0}))
    assert (found is not None) == fires


def comparison(speedup: float | None, sources_match: bool | None = True, baseline_runs: int = 5) -> Comparison:
    return Comparison(
        "base", "base", 10, baseline_runs, 1.0, 2.0, -1.0, speedup, "event_log", "profiler", sources_match
    )


@pytest.mark.parametrize(
    ("speedup", "key"),
    [(2.0, "much_faster"), (1.99, "similar_speed"), (0.51, "similar_speed"), (0.5, "much_slower")],
)
def test_comparison_size(speedup, key):
    assert rules.comparison_size(profile(comparison=comparison(speedup))).key == key


def test_comparison_size_without_baseline_data():
    assert rules.comparison_size(profile(comparison=comparison(None, None, 0))) is None


@pytest.mark.parametrize(("share", "fires"), [(50.0, True), (49.99, False)])
def test_dominant_section(share, fires):
    sections = [ProfileSection("unattributed", 9, 60.0, 1, 2), ProfileSection("train", 1, share, 1, 2)]
    sections.sort(key=lambda section: section.section == "unattributed")
    assert (rules.dominant_section(profile(profile_sections=sections)) is not None) == fires


def limit_keys(**changes) -> list[str]:
    return [finding.key for finding in rules.limits(profile(**changes))]


def test_limits_name_what_the_data_lacks():
    assert limit_keys() == ["no_profiler_sections", "coarse_attribution_only"]
    section = ProfileSection("train", 1, 90.0, 1, 2)
    assert limit_keys(profile_sections=[section], snapshot={"measurement_source": "profiler"}) == [
        "profiler_wall_time_only"
    ]
    assert "mixed_sources" in limit_keys(snapshot={"measurement_source": "mixed"})
    assert "no_epoch_end_split" in limit_keys(snapshot={"mean_tail_share_percent": None})
    assert "comparison_sources_differ" in limit_keys(comparison=comparison(2.0, False))
    assert "comparison_sources_differ" not in limit_keys(comparison=comparison(2.0, True))
    assert "baseline_without_data" in limit_keys(comparison=comparison(None, None, 0))
    assert "excluded_runs" in limit_keys(snapshot={"runs_excluded": 1})
    assert "rejected_lines" in limit_keys(data_quality=replace(QUALITY, rejected=1))
    assert "rejected_lines" not in limit_keys()
    assert "no_analysed_runs" in limit_keys(snapshot={"runs_analyzed": 0})
    approximation = MarkerApproximation("tensorboard", "run_end taken from the last event", 2, 2)
    assert "approximate_markers" in limit_keys(approximations=[approximation])


def epochs(median: float = 50, ratio: float | None = 1.5, ending: int = 0, runs: int = 4) -> EpochSummary:
    return EpochSummary(runs, ending, 200, median, median, 6.0, 6.0, 7.0, 10.0, 9.0, 6.0, 180.0, ratio)


@pytest.mark.parametrize(("median", "fires"), [(5, True), (4.5, False), (1, False)])
def test_many_epochs_from_the_median_run(median, fires):
    found = rules.many_epochs(profile(epochs=epochs(median=median)))
    assert (found is not None) == fires
    assert rules.many_epochs(profile()) is None


def test_many_epochs_replace_the_later_windows():
    top = LongestInterval("run_start -> step_200", 6, 10, 10.0, 12.0)
    windows = LaterWindows(7, 1.0, 3.0, 50.0)
    assert rules.later_windows(profile(longest_intervals=[top], later_windows=windows)) is not None
    assert rules.later_windows(profile(longest_intervals=[top], later_windows=windows, epochs=epochs())) is None


@pytest.mark.parametrize(
    ("ratio", "key"),
    [
        (1.2, "first_epoch_slower"),
        (1.19, "first_epoch_similar"),
        (1 / 1.2, "first_epoch_faster"),
        (0.9, "first_epoch_similar"),
    ],
)
def test_first_epoch(ratio, key):
    assert rules.first_epoch(profile(epochs=epochs(ratio=ratio))).key == key
    assert rules.first_epoch(profile(epochs=epochs(ratio=None))) is None


@pytest.mark.parametrize(
    ("ending", "key"), [(4, "every_run_ends_at_final_epoch_end"), (1, "some_runs_end_at_final_epoch_end")]
)
def test_runs_that_end_at_their_final_epoch_end(ending, key):
    assert rules.final_epoch_end_tail(profile(epochs=epochs(ending=ending))).key == key
    assert rules.final_epoch_end_tail(profile(epochs=epochs(ending=0))) is None


def test_coinciding_markers_and_whole_epochs():
    kinds = [
        IntervalKind("epoch_end -> checkpoint", 98, 0, 2.3, 97.9),
        IntervalKind("checkpoint -> epoch_end", 100, 100, 0.0, 0.0),
        IntervalKind("downtime", 1, 1, 0.0, 0.0),
        IntervalKind("epoch_end -> run_end", 2, 1, 0.0, 0.0),
    ]
    found = rules.coinciding_markers(profile(interval_kinds=kinds))
    assert found.figures == {"kinds": ["checkpoint -> epoch_end"], "whole_epochs": True}
    assert rules.coinciding_markers(profile(interval_kinds=kinds[2:])) is None
    alone = rules.coinciding_markers(profile(interval_kinds=kinds[1:2]))
    assert alone.figures["whole_epochs"] is False
