"""Each rule that chooses a report sentence, on both sides of its threshold (report/rules.md)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from runlens.report import rules, sentences, tables, units
from runlens.report.data import CollectionProfile
from runlens.report.rows import Row, mart_row, row
from tests.support.goodput_fixture import BUCKETS

SNAPSHOT = row(
    "snapshot",
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
    mean_wall_seconds=3600.0,
    median_wall_seconds=3600.0,
    p90_wall_seconds=6000.0,
    min_wall_seconds=1800.0,
    max_wall_seconds=7200.0,
    mean_pre_tail_seconds=2880.0,
    mean_tail_seconds=720.0,
    max_tail_seconds=1800.0,
    mean_tail_share=0.2,
    mean_pre_tail_share=0.8,
    slowest_to_fastest_task_ratio=1.0,
    runs=10,
    trace_runs=0,
)
QUALITY = mart_row(
    "agg_collection_data_quality",
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


def task(name: str, mean_seconds: float, tail_share: float | None = 0.1) -> Row:
    return mart_row(
        "agg_task_runtime",
        task=name,
        runs_analyzed=3,
        runs_excluded=0,
        mean_wall_seconds=mean_seconds,
        median_wall_seconds=mean_seconds,
        p90_wall_seconds=mean_seconds,
        p95_wall_seconds=mean_seconds,
        mean_tail_seconds=360.0,
        mean_tail_share=tail_share,
    )


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
        likely_typos=[],
        approximations=[],
    )
    return replace(base, **changes)


@pytest.mark.parametrize(
    ("pre", "tail", "key"),
    [
        (0.75, 0.25, "mostly_before_final_epoch_end"),
        (0.7499, 0.2501, "split_between_both"),
        (0.4999, 0.5001, "mostly_in_final_tail"),
        (0.5001, 0.4999, "split_between_both"),
    ],
)
def test_coarse_split(pre, tail, key):
    found = rules.coarse_split(profile(snapshot={"mean_pre_tail_share": pre, "mean_tail_share": tail}))
    assert found.key == key


def test_coarse_split_needs_both_shares():
    assert rules.coarse_split(profile(snapshot={"mean_tail_share": None})) is None


@pytest.mark.parametrize(("runs", "key"), [(6, "usually_longest"), (5, "no_usual_longest")])
def test_longest_interval_is_usual_only_in_more_than_half_the_runs(runs, key):
    top = mart_row(
        "agg_collection_longest_intervals",
        longest_interval_label="run_start -> step_200",
        runs=runs,
        runs_with_intervals=10,
        mean_seconds=816.0,
        mean_seconds_when_longest=900.0,
    )
    assert rules.longest_interval(profile(longest_intervals=[top])).key == key


@pytest.mark.parametrize(("summed", "fires"), [(816.1, True), (816.0, False)])
def test_later_windows_outweigh_the_opening_block(summed, fires):
    top = mart_row(
        "agg_collection_longest_intervals",
        longest_interval_label="run_start -> step_200",
        runs=8,
        runs_with_intervals=10,
        mean_seconds=816.0,
        mean_seconds_when_longest=900.0,
    )
    windows = mart_row(
        "agg_collection_later_windows",
        later_window_count=7,
        min_mean_seconds=1.0,
        max_mean_seconds=3.0,
        summed_mean_seconds=summed,
    )
    found = rules.later_windows(profile(longest_intervals=[top], later_windows=windows))
    assert (found is not None) == fires


def test_later_windows_compare_only_with_an_opening_block():
    top = mart_row(
        "agg_collection_longest_intervals",
        longest_interval_label="step_200 -> step_400",
        runs=8,
        runs_with_intervals=10,
        mean_seconds=60.0,
        mean_seconds_when_longest=60.0,
    )
    assert (
        rules.later_windows(
            profile(
                longest_intervals=[top],
                later_windows=mart_row(
                    "agg_collection_later_windows",
                    later_window_count=7,
                    min_mean_seconds=60,
                    max_mean_seconds=180,
                    summed_mean_seconds=3000,
                ),
            )
        )
        is None
    )


@pytest.mark.parametrize(("share", "key"), [(0.05, "tail_not_negligible"), (0.0499, "tail_negligible")])
def test_tail_weight(share, key):
    assert rules.tail_weight(profile(snapshot={"mean_tail_share": share})).key == key


@pytest.mark.parametrize(("ratio", "key"), [(1.5, "task_drives_variation"), (1.49, "tasks_similar")])
def test_task_spread(ratio, key):
    tasks = [task("slow", 5400), task("fast", 3600)]
    assert rules.task_spread(profile(tasks=tasks, snapshot={"slowest_to_fastest_task_ratio": ratio})).key == key


def test_task_spread_needs_two_tasks():
    assert rules.task_spread(profile(tasks=[task("only", 3600)])) is None


@pytest.mark.parametrize(("tasks", "named"), [(1, 0), (2, 1), (3, 1), (5, 2), (6, 3), (24, 3)])
def test_slowest_and_fastest_lists_never_overlap(tasks, named):
    # three tasks name one slowest and one fastest, never the same task twice
    found = rules.named_tasks(profile(tasks=[task(f"t{number}", 100 - number) for number in range(tasks)]))
    assert found == named and 2 * found <= tasks


def comparison(
    speedup: float | None,
    sources_match: bool | None = True,
    baseline_runs: int = 5,
    matched: float | None = None,
    mix: bool = False,
) -> Row:
    return row(
        "comparison",
        baseline_collection="base",
        baseline_title="base",
        runs_analyzed=10,
        baseline_runs_analyzed=baseline_runs,
        mean_wall_seconds=3600.0,
        baseline_mean_wall_seconds=7200.0,
        delta_seconds=-3600.0,
        speedup=speedup,
        measurement_source="event_log",
        baseline_measurement_source="profiler",
        sources_match=sources_match,
        regressed_tasks=0,
        matched_tasks=2,
        matched_runs=10,
        matched_mean_wall_seconds=3600.0,
        matched_baseline_mean_wall_seconds=7200.0,
        matched_speedup=matched,
        has_different_task_mix=mix,
    )


@pytest.mark.parametrize(
    ("speedup", "key"),
    [
        (2.0, "much_faster"),
        (1.99, "faster"),
        (1.1, "faster"),
        (1.0999, "about_the_same"),
        (1.0, "about_the_same"),
        (1 / 1.0999, "about_the_same"),
        (1 / 1.1, "slower"),
        (0.51, "slower"),
        (0.5, "much_slower"),
    ],
)
def test_the_verdict_is_about_the_same_within_ten_percent(speedup, key):
    assert rules.baseline_change(profile(comparison=comparison(speedup))).key == key


def test_a_different_task_mix_puts_matched_tasks_in_the_headline():
    # raw means 1.33x slower (0.75) mixing tasks; on matched tasks 1.13x slower (0.883)
    found = rules.baseline_change(profile(comparison=comparison(0.75, matched=0.883, mix=True)))
    assert (found.key, found.figures["matched"]) == ("slower", True)
    # the same figures with the same mix: the raw means are the headline
    assert rules.baseline_change(profile(comparison=comparison(0.75, matched=0.883))).key == "slower"
    about = rules.baseline_change(profile(comparison=comparison(0.75, matched=1.05, mix=True)))
    assert about.key == "about_the_same"


def test_regressed_tasks_are_named_with_the_change():
    regressed = mart_row(
        "cmp_task_runtime",
        task="base_conversion",
        runs=4,
        baseline_runs=6,
        mean_wall_seconds=8930.0,
        baseline_mean_wall_seconds=7090.0,
        speedup=0.794,
        is_regression=True,
    )
    steady = mart_row(
        "cmp_task_runtime",
        task="list_summation",
        runs=1,
        baseline_runs=6,
        mean_wall_seconds=2950.0,
        baseline_mean_wall_seconds=2900.0,
        speedup=0.983,
        is_regression=False,
    )
    found = rules.baseline_change(profile(comparison=comparison(0.75), task_comparisons=[regressed, steady]))
    assert found.figures["regressed"] == [regressed]


def test_no_task_in_common_says_so():
    none_common = replace(comparison(0.5, mix=True), matched_tasks=0)
    assert rules.baseline_change(profile(comparison=none_common)).key == "no_common_tasks"


def test_no_baseline_or_one_without_runs():
    assert rules.baseline_change(profile()) is None
    assert rules.baseline_change(profile(comparison=comparison(None, None, 0))).key == "baseline_without_data"


def section(name: str, share: float) -> Row:
    return mart_row(
        "agg_collection_profile_sections",
        section=name,
        total_seconds=3600.0 * share,
        share_of_wall=share,
        mean_seconds_per_run=1800.0 * share,
        profiled_runs=2,
    )


def kind(name: str, share: float, zero: int = 0) -> Row:
    return mart_row(
        "agg_collection_interval_kinds",
        interval_kind=name,
        intervals=10,
        zero_second_intervals=zero,
        total_seconds=36000.0 * share,
        share_of_wall=share,
    )


def test_the_largest_share_is_a_profiler_section_before_a_kind_of_interval():
    sections = [
        section("router_sampled_eval_generation", 0.7217),
        section("train", 0.18),
        section("unattributed", 0.05),
    ]
    kinds = [kind("checkpoint -> checkpoint", 0.58), kind("run_start -> checkpoint", 0.19)]
    found = rules.largest_share(profile(profile_sections=sections, interval_kinds=kinds))
    assert (found.key, found.figures["leaders"][0].section, found.figures["following"][0].section) == (
        "profiler_section",
        "router_sampled_eval_generation",
        "train",
    )
    found = rules.largest_share(profile(interval_kinds=kinds))
    assert (found.key, found.figures["leaders"][0].interval_kind) == ("interval_kind", "checkpoint -> checkpoint")
    assert rules.largest_share(profile()).key == "final_tail"
    assert rules.largest_share(profile(snapshot={"mean_tail_share": None})) is None
    # unattributed time alone names no section
    only_unattributed = [section("unattributed", 1.0)]
    assert rules.largest_share(profile(profile_sections=only_unattributed, interval_kinds=kinds)).key == "interval_kind"


def test_shares_that_print_the_same_are_a_tie():
    """33.33% and 33.34% both print 33.3%: a tie, never "most" and "next"; 33.3% against 33.5% (more
    than 0.5% apart, each printed alone) is a ranking; the group after the leaders is a tie too."""
    tied = [kind("a -> b", 0.3334), kind("b -> c", 0.3333), kind("c -> d", 0.1667), kind("d -> e", 0.1666)]
    found = rules.largest_share(profile(interval_kinds=tied))
    assert [[k.interval_kind for k in found.figures[group]] for group in ("leaders", "following")] == [
        ["a -> b", "b -> c"],
        ["c -> d", "d -> e"],
    ]
    apart = [kind("a -> b", 0.335), kind("b -> c", 0.333)]
    found = rules.largest_share(profile(interval_kinds=apart))
    assert [len(found.figures[group]) for group in ("leaders", "following")] == [1, 1]


def test_a_small_named_section_does_not_hide_where_the_time_goes():
    """A text log's checkpoint saves (2% of the span) are the only named section: 98% unattributed.
    The intervals answer; without intervals, the section is still named."""
    saves = [section("checkpoint_save", 0.02), section("unattributed", 0.98)]
    kinds = [kind("epoch_end -> checkpoint", 0.979)]
    found = rules.largest_share(profile(profile_sections=saves, interval_kinds=kinds))
    assert (found.key, found.figures["leaders"][0].interval_kind) == ("interval_kind", "epoch_end -> checkpoint")
    found = rules.largest_share(profile(profile_sections=saves))
    assert (found.key, found.figures["leaders"][0].section) == ("profiler_section", "checkpoint_save")
    # two named sections holding half the profiled time together answer
    half = [section("forward", 0.3), section("data_loading", 0.2), section("unattributed", 0.5)]
    assert rules.largest_share(profile(profile_sections=half, interval_kinds=kinds)).key == "profiler_section"


def test_a_section_that_maps_to_no_goodput_bucket_is_named_with_the_var_that_maps_it():
    """The sample's continuous-v2 profiles carry output_writing (2.47 h over 24 runs), which neither
    the seed nor the var maps to a bucket: beside a training section (train), goodput counts it as
    unattributed with the 9.17 h in no section, so goodput's unattributed (11.7 h) is not the
    profiler's; the page says why. Without a training section (the faulty fixture's base: compute,
    35.0 min), goodput counts it within productive time, an upper bound."""
    mapped = replace(section("train", 0.18), goodput_bucket="training")
    unmapped = replace(section("output_writing", 0.01), total_seconds=8892.0)
    rest = section("unattributed", 0.037)
    found = rules.unmapped_sections(profile(profile_sections=[mapped, unmapped, rest]))
    assert (found.key, [one.section for one in found.figures["sections"]]) == ("beside_training", ["output_writing"])
    assert rules.unmapped_sections(profile(profile_sections=[mapped, rest])) is None
    findings = replace(rules.evaluate(profile()), unmapped_sections=found)
    assert sentences.unmapped_sections(findings) == (
        "`output_writing` maps to no goodput bucket, so goodput counts its 2.47 h as unattributed, beside the time in"
        " no section (in a run without a training section, within its productive time): the var"
        " `goodput_section_buckets` maps a section to a bucket (`training`, `evaluation`, `checkpoint_save`,"
        " `checkpoint_restore` or `data_loading`), as in"
        " `runlens build -- --vars '{goodput_section_buckets: {output_writing: <bucket>}}'`."
    )
    compute = replace(section("compute", 0.6), total_seconds=2100.0)
    evaluation = replace(section("eval", 0.05), goodput_bucket="evaluation")
    found = rules.unmapped_sections(profile(profile_sections=[compute, evaluation, rest]))
    assert (found.key, [one.section for one in found.figures["sections"]]) == ("without_training", ["compute"])
    assert sentences.unmapped_sections(replace(findings, unmapped_sections=found)).startswith(
        "`compute` maps to no goodput bucket, and no section here maps to training, so goodput counts its 35.0 min"
        " within productive time, which is then an upper bound: the var"
    )


def span(runs: int, peak: int, mean: float | None) -> Row:
    from datetime import datetime

    start = datetime(2025, 3, 3, 6, 50)
    return mart_row(
        "agg_collection_span",
        first_started_at=start,
        span_ended_at=start,
        is_open=False,
        span_seconds=159480.0,
        runs=runs,
        active_seconds=164520.0,
        peak_concurrent_runs=peak,
        mean_concurrent_runs=mean,
        longest_run_id="r",
        longest_run_seconds=11400.0,
        is_longest_run_expected=False,
        runs_with_gpus=0,
        gpu_hours=None,
    )


@pytest.mark.parametrize(
    ("runs", "peak", "mean", "key"),
    [
        (38, 4, 1.03, "one_at_a_time"),  # the sample's v3: 1.03 runs at once on average over 44.3 h
        (38, 4, 1.4999, "one_at_a_time"),
        (38, 4, 1.5, "in_parallel"),
        (14, 1, 1.0, "never_overlapped"),
        (6, 1, 0.55, "never_overlapped"),  # the faulty fixture's alpha: runs one after another, idle between
        (1, 1, 1.0, "single_run"),
    ],
)
def test_how_the_sweep_used_its_span(runs, peak, mean, key):
    assert rules.span_use(profile(span=span(runs, peak, mean))).key == key
    assert rules.span_use(profile(span=span(runs, peak, None))) is None


def live(is_live: bool, running: int, stalled: int, abandoned: int, finish: bool = True) -> Row:
    from datetime import datetime

    at = datetime(2025, 3, 10, 12)
    return mart_row(
        "agg_collection_progress",
        as_of_at=at,
        is_live=is_live,
        runs_completed=8,
        runs_failed=1,
        runs_running=running,
        runs_stalled=stalled,
        runs_abandoned=abandoned,
        last_finish_low_at=at if finish else None,
        last_finish_at=at if finish else None,
        last_finish_high_at=at if finish else None,
        last_finish_calibrated_low_at=at if finish else None,
        last_finish_calibrated_high_at=at if finish else None,
        spent_share=0.85,
    )  # noqa: E501


@pytest.mark.parametrize(
    ("progress", "key"),
    [
        (live(True, 4, 1, 0), "last_finish_estimated"),
        (live(True, 4, 0, 0, finish=False), "no_finish_estimate"),
        (live(True, 0, 1, 0, finish=False), "only_stalled_runs"),
        (live(False, 0, 0, 1, finish=False), "abandoned_only"),
    ],
)
def test_what_is_still_going(progress, key):
    assert rules.live_sweep(profile(live=progress)).key == key


def calibration(calibrated: int, runs: int = 32, after: float = 0.52, before: float = 0.41) -> Row:
    """agg_collection_eta_calibration: 32 finished runs replayed at 11 markers each, 352 replays."""
    return mart_row(
        "agg_collection_eta_calibration",
        collection="c",
        finished_runs=runs,
        replays=352,
        replays_calibrated=calibrated,
        collection_range_scale=1.3 if calibrated else None,
        coverage_before=before,
        coverage_after=after,
        median_abs_error_seconds=60.0,
        median_relative_error=0.08,
    )


def test_the_range_line_says_how_often_ranges_like_these_held_the_true_finish():
    """The issue's own example: 32 finished runs, calibrated ranges held 52% of them (the
    uncorrected ones 41%); with no replay calibrated, the same figure and why it is uncorrected."""
    running = live(True, 4, 1, 0)
    found = rules.eta_range(profile(live=running, eta_calibration=calibration(352)))
    assert found.key == "calibrated" and found.figures == {"runs": 32, "after": 0.52, "before": 0.41}
    assert sentences.eta_range(SimpleNamespace(eta_range=found)) == (
        "On this sweep's 32 finished runs, replayed as if live at each marker, ranges like these held the true"
        " finish 52.0% of the time (the peers' uncorrected 25th to 75th percentile: 41.0%; each range is scaled"
        " on its task's replays, else its collection's, `def_eta_calibration`)."
    )
    few = rules.eta_range(profile(live=running, eta_calibration=calibration(0, runs=2, after=0.0, before=0.0)))
    assert few.key == "uncalibrated"
    assert sentences.eta_range(SimpleNamespace(eta_range=few)) == (
        "On this sweep's 2 finished runs, replayed as if live at each marker, ranges like these held the true"
        " finish 0% of the time: too few replays to calibrate them, so each is the peers' uncorrected 25th to"
        " 75th percentile."
    )


def test_no_range_line_without_replays_or_running_runs():
    assert rules.eta_range(profile(live=live(True, 4, 0, 0))) is None
    assert rules.eta_range(profile(live=live(True, 0, 1, 0, finish=False), eta_calibration=calibration(352))) is None
    assert rules.eta_range(profile(eta_calibration=calibration(352))) is None
    assert sentences.eta_range(SimpleNamespace(eta_range=None)) is None


def test_a_finished_sweep_says_nothing_of_running_runs():
    assert rules.live_sweep(profile(live=live(False, 0, 0, 0, finish=False))) is None
    assert rules.live_sweep(profile()) is None


def summary(scored: int, stragglers: int) -> Row:
    return mart_row(
        "agg_collection_stragglers",
        runs=10,
        runs_scored=scored,
        stragglers=stragglers,
        slow_overall=stragglers,
        with_outlier_interval=0,
        wall_multiple_threshold=1.5,
        robust_z_threshold=3.5,
        min_excess_share=0.02,
        min_excess_seconds=10.0,
        min_task_runs=3,
    )


@pytest.mark.parametrize(
    ("scored", "stragglers", "key"), [(0, 0, "not_scored"), (10, 0, "none_flagged"), (10, 2, "flagged")]
)
def test_stragglers_not_scored_none_or_flagged(scored, stragglers, key):
    assert rules.stragglers(profile(straggler_summary=summary(scored, stragglers))).key == key


def test_the_checkpoint_sentence_only_when_no_section_measured_saving():
    top = mart_row(
        "agg_collection_longest_intervals",
        longest_interval_label="run_start -> step_200",
        runs=6,
        runs_with_intervals=10,
        mean_seconds=816.0,
        mean_seconds_when_longest=900.0,
    )
    assert rules.saving_unmeasured(profile(longest_intervals=[top])).key == "saving_unmeasured"
    saving = [section("checkpoint_save", 0.4354), section("train_step", 0.5)]
    assert rules.saving_unmeasured(profile(longest_intervals=[top], profile_sections=saving)) is None
    assert rules.saving_unmeasured(profile(longest_intervals=[top], profile_sections=[section("Save", 0.1)])) is None
    assert rules.saving_unmeasured(profile()) is None  # no intervals: nothing to say it of


def not_shown_keys(**changes) -> list[str]:
    shown = profile(**changes)
    return [finding.key for finding in rules.evaluate(shown).not_shown]


def test_sections_with_nothing_to_say_are_listed_on_one_line():
    assert not_shown_keys(straggler_summary=summary(0, 0)) == [
        "still_running",
        "baseline_not_named",
        "no_profiler_sections",
        "no_utilization_samples",
        "few_epochs",
        "not_scored",
        "one_task",
    ]
    shown = not_shown_keys(
        straggler_summary=summary(10, 2),
        profile_sections=[section("train", 0.9)],
        comparison=comparison(2.0),
        tasks=[task("a", 10), task("b", 20)],
        live=live(True, 1, 0, 0),
        utilization=utilization_row(gpu_hours=2.0, measured_gpu_hours=2.0, mean_gpu_utilization_pct=50.0),
    )
    assert shown == ["few_epochs"]
    assert "baseline_without_runs" in not_shown_keys(comparison=comparison(None, None, 0))


def limit_keys(**changes) -> list[str]:
    return [finding.key for finding in rules.limits(profile(**changes))]


def test_limits_name_what_the_data_lacks():
    assert limit_keys() == ["coarse_attribution_only"]
    assert limit_keys(profile_sections=[section("train", 0.9)], snapshot={"measurement_source": "profiler"}) == [
        "profiler_wall_time_only"
    ]
    assert "coarse_attribution_only" not in limit_keys(profile_sections=[section("train", 0.9)])
    assert "mixed_sources" in limit_keys(snapshot={"measurement_source": "mixed"})
    assert "no_epoch_end_split" in limit_keys(snapshot={"mean_tail_share": None})
    assert "comparison_sources_differ" in limit_keys(comparison=comparison(2.0, False))
    assert "comparison_sources_differ" not in limit_keys(comparison=comparison(2.0, True))
    assert "excluded_runs" in limit_keys(snapshot={"runs_excluded": 1})
    assert "rejected_lines" in limit_keys(data_quality=replace(QUALITY, rejected=1))
    assert "rejected_lines" not in limit_keys()
    approximation = mart_row(
        "agg_collection_marker_approximations",
        source_format="tensorboard",
        approximation="run_end taken from the last event",
        markers=2,
        runs=2,
    )
    assert "approximate_markers" in limit_keys(approximations=[approximation])


def epochs(median: float = 50, ratio: float | None = 1.5, ending: int = 0, runs: int = 4) -> Row:
    return mart_row(
        "agg_collection_epochs",
        runs_with_epochs=runs,
        runs_ending_at_final_epoch_end=ending,
        epochs=200,
        mean_epochs_per_run=median,
        median_epochs_per_run=median,
        mean_epoch_seconds=360.0,
        p50_epoch_seconds=360.0,
        p90_epoch_seconds=420.0,
        max_epoch_seconds=600.0,
        mean_first_epoch_seconds=540.0,
        mean_later_epoch_median_seconds=360.0,
        mean_first_epoch_excess_seconds=180.0,
        mean_first_epoch_ratio=ratio,
    )


@pytest.mark.parametrize(("median", "fires"), [(5, True), (4.5, False), (1, False)])
def test_many_epochs_from_the_median_run(median, fires):
    found = rules.many_epochs(profile(epochs=epochs(median=median)))
    assert (found is not None) == fires
    assert rules.many_epochs(profile()) is None


def test_many_epochs_replace_the_later_windows():
    top = mart_row(
        "agg_collection_longest_intervals",
        longest_interval_label="run_start -> step_200",
        runs=6,
        runs_with_intervals=10,
        mean_seconds=600.0,
        mean_seconds_when_longest=720.0,
    )
    windows = mart_row(
        "agg_collection_later_windows",
        later_window_count=7,
        min_mean_seconds=60.0,
        max_mean_seconds=180.0,
        summed_mean_seconds=3000.0,
    )
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
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="epoch_end -> checkpoint",
            intervals=98,
            zero_second_intervals=0,
            total_seconds=8280.0,
            share_of_wall=0.979,
        ),
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="checkpoint -> epoch_end",
            intervals=100,
            zero_second_intervals=100,
            total_seconds=0.0,
            share_of_wall=0.0,
        ),
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="... -> run_start",
            intervals=1,
            zero_second_intervals=1,
            total_seconds=0.0,
            share_of_wall=0.0,
        ),
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="epoch_end -> run_end",
            intervals=2,
            zero_second_intervals=1,
            total_seconds=0.0,
            share_of_wall=0.0,
        ),
    ]
    found = rules.coinciding_markers(profile(interval_kinds=kinds))
    assert found.figures == {"kinds": ["checkpoint -> epoch_end"], "whole_epochs": True, "split_by_profiles": False}
    # with interval sections (profiles at more than one moment), the profiles split such an epoch
    split = rules.coinciding_markers(
        profile(
            interval_kinds=kinds,
            interval_sections=[mart_row("agg_collection_interval_sections", wall_time_part="later_windows")],
        )
    )
    assert split.figures["split_by_profiles"] is True
    assert rules.coinciding_markers(profile(interval_kinds=kinds[2:])) is None
    alone = rules.coinciding_markers(profile(interval_kinds=kinds[1:2]))
    assert alone.figures["whole_epochs"] is False


def test_the_headline_speaks_of_epochs_when_an_interval_kind_is_the_epoch_itself():
    """fairseq's logs: one save per epoch, logged as the epoch ends, so `epoch_end -> checkpoint`
    (97.9%) is a whole epoch: the headline gives the epochs (their number and length), not the
    two markers. Without the coinciding markers, or without epochs, the kind leads as before."""
    kinds = [
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="epoch_end -> checkpoint",
            intervals=98,
            zero_second_intervals=0,
            total_seconds=8280.0,
            share_of_wall=0.979,
        ),
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="run_start -> checkpoint",
            intervals=2,
            zero_second_intervals=0,
            total_seconds=177.0,
            share_of_wall=0.021,
        ),
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="checkpoint -> epoch_end",
            intervals=100,
            zero_second_intervals=100,
            total_seconds=0.0,
            share_of_wall=0.0,
        ),
    ]
    whole = rules.largest_share(profile(interval_kinds=kinds, epochs=epochs()))
    assert whole.key == "whole_epochs"
    assert whole.figures["first"].interval_kind == "epoch_end -> checkpoint"
    assert whole.figures["epochs"] == epochs()
    # a save inside the epoch (checkpoint -> epoch_end takes time): the kind is no whole epoch
    timed = [
        kinds[0],
        kinds[1],
        mart_row(
            "agg_collection_interval_kinds",
            interval_kind="checkpoint -> epoch_end",
            intervals=100,
            zero_second_intervals=0,
            total_seconds=600.0,
            share_of_wall=0.05,
        ),
    ]
    assert rules.largest_share(profile(interval_kinds=timed, epochs=epochs())).key == "interval_kind"
    assert rules.largest_share(profile(interval_kinds=kinds)).key == "interval_kind"


def test_tasks_equal_at_the_precision_shown_are_called_equal():
    """Two fastest tasks of 2,952 s and 2,953 s (49.2 min both at three significant digits, 0.03%
    apart): the page calls them equal rather than one the fastest; 2,952 s against 2,910 s (48.5
    min) is no tie. The slowest end is checked the same way; fewer than four tasks name one of
    each end, which has nothing to tie with."""

    tied = profile(tasks=[task("a", 7092), task("b", 5730), task("c", 4590), task("d", 2953), task("e", 2952)])
    assert tables.tied_ends(tied, 2) == [("e", "d")]
    apart = profile(tasks=[task("a", 7092), task("b", 5730), task("c", 4590), task("d", 2952), task("e", 2910)])
    assert tables.tied_ends(apart, 2) == []
    assert tables.tied_ends(tied, 1) == []
    # the second and third slowest of three named, 5,731 s and 5,730 s, both 95.5 min: a tie too
    behind = profile(
        tasks=[
            task(name, seconds) for name, seconds in zip("abcdef", (7092, 5731, 5730, 4590, 2952, 2910), strict=True)
        ]
    )
    assert tables.tied_ends(behind, 3) == [("b", "c")]


def goodput_rows(seconds: dict[str, float], gpus: int | None = None, unmeasured: dict | None = None) -> list:
    """agg_collection_goodput's rows of one collection of 4 runs, each bucket's seconds given."""
    wall = sum(seconds.values())
    rows = []
    for bucket in BUCKETS:
        value = seconds.get(bucket, 0.0)
        runs_unmeasured, unmeasured_seconds = (unmeasured or {}).get(bucket, (0, 0.0))
        rows.append(
            mart_row(
                "agg_collection_goodput",
                bucket=bucket,
                runs=4,
                runs_unmeasured=runs_unmeasured,
                unmeasured_seconds=unmeasured_seconds,
                seconds=value,
                share_of_wall=value / wall if wall else None,
                gpu_hours=None if gpus is None else value * gpus / 3600,
                share_of_gpu_hours=None if gpus is None or not wall else value / wall,
                total_gpu_hours=None if gpus is None else wall * gpus / 3600,
                wall_seconds=wall,
            )
        )
    return rows


def test_goodput_names_the_largest_costs_with_down_and_redone_together():
    seconds = {
        "productive": 7100,
        "start_up": 1200,
        "down": 1200,
        "redone": 1900,
        "evaluation": 700,
        "checkpoint_save": 2200,
        "final_tail": 100,
        "unattributed": 50,
    }
    found = rules.goodput(profile(goodput=goodput_rows(seconds, gpus=8)))
    assert found.key == "gpu_hours"
    assert found.figures["share"] == pytest.approx(7100 / 14450)
    # disruptions 3,100 s, saves 2,200, start-up 1,200, evaluation 700; the tail and unattributed left
    assert [cost["bucket"] for cost in found.figures["costs"]] == [
        "restarts",
        "checkpoint_save",
        "start_up",
        "evaluation",
    ]
    assert found.figures["costs"][0]["amount"] == pytest.approx(3100 * 8 / 3600)
    assert found.figures["more_costs"] == 2
    assert found.figures["is_upper_bound"] is False


def test_goodput_is_in_run_time_unless_every_run_names_its_gpus():
    found = rules.goodput(profile(goodput=goodput_rows({"productive": 3000, "final_tail": 600})))
    assert found.key == "run_time"
    assert found.figures["total"] == 3600
    assert found.figures["costs"] == [{"bucket": "final_tail", "amount": 600}]


def test_goodput_without_runs_or_wall_time_says_nothing():
    assert rules.goodput(profile()) is None
    assert rules.goodput(profile(goodput=goodput_rows({"productive": 0.0, "down": 0.0}))) is None


def test_what_the_logs_could_not_measure_is_named_with_the_time_it_could_hide():
    rows = goodput_rows(
        {"productive": 3000, "final_tail": 600},
        unmeasured={"start_up": (3, 240.0), "productive": (4, 3000.0), "redone": (1, None)},
    )
    found = rules.goodput_unmeasured(profile(goodput=rows))
    assert [(finding.key, finding.figures) for finding in found] == [
        ("start_up_unmeasured", {"runs": 3, "of": 4, "seconds": 240.0}),
        ("sections_unmeasured", {"runs": 4, "of": 4, "seconds": 3000.0}),
        ("restores_inferred", {"runs": 1, "of": 4, "seconds": None}),
    ]
    assert rules.goodput(profile(goodput=rows)).figures["is_upper_bound"] is True
    assert rules.goodput_unmeasured(profile(goodput=goodput_rows({"productive": 10.0}))) == []


def test_the_goodput_sentence_gives_gpu_hours_in_one_precision_and_run_time_each_in_its_unit():
    seconds = {"productive": 7100, "down": 1200, "redone": 1900, "checkpoint_save": 2200}
    answer = tables.goodput_answer(profile(goodput=goodput_rows(seconds, gpus=8)))
    # 12,400 s x 8 GPUs = 27.6 GPU-hours; disruptions 6.89 (2.67 down, 4.22 redone), saves 4.89
    assert (answer["share"], answer["total"], answer["disruption_parts"]) == (
        "57.3%",
        "27.6",
        ["2.67 down", "4.22 redone"],
    )
    assert [(cost["words"], cost["amount"]) for cost in answer["costs"]] == [
        ("disruptions", "6.89"),
        ("checkpoint saves", "4.89"),
    ]
    answer = tables.goodput_answer(profile(goodput=goodput_rows({"productive": 36000, "down": 90})))
    # a part without time is left out: a restart that redid nothing
    assert (answer["total"], answer["costs"][0]["amount"], answer["disruption_parts"]) == (
        "10.0 h",
        "90.0 s",
        ["90.0 s down"],
    )


@pytest.mark.parametrize(
    ("change", "text"),
    [(-0.772, "-77.2 pp"), (0.0002, "+0.020 pp"), (0.0, "0 pp"), (0.0128, "+1.3 pp"), (None, "n/a")],
)
def test_a_change_of_share_prints_in_points_with_its_sign(change, text):
    assert units.points(change) == text


def test_inside_the_intervals_names_the_later_windows_and_what_moved_against_the_baseline():
    """The later windows first (where the work is): their two largest sections by share, no
    section's rest named; against the baseline, the part's change per run (here 108 s longer) and
    the section that holds most of it in that direction (evaluation, 96 s; train moved 20 s the
    other way, the time in no section 32 s, which is no section's)."""
    part = {"wall_time_part": "later_windows", "runs": 4, "part_seconds": 4000.0}
    sections = [
        mart_row("agg_collection_interval_sections", **part, section="train", seconds=2840.0, share_of_part=0.71),
        mart_row("agg_collection_interval_sections", **part, section="eval", seconds=960.0, share_of_part=0.24),
        mart_row("agg_collection_interval_sections", **part, section="unattributed", seconds=200.0, share_of_part=0.05),
        mart_row(
            "agg_collection_interval_sections",
            wall_time_part="opening_block",
            runs=4,
            part_seconds=400.0,
            section="train",
            seconds=400.0,
            share_of_part=1.0,
        ),
    ]
    changes = [
        mart_row(
            "cmp_collection_interval_sections",
            wall_time_part="later_windows",
            section=name,
            change_seconds=change,
            part_change_seconds=108.0,
        )
        for name, change in (("eval", 96.0), ("unattributed", 32.0), ("train", -20.0))
    ]
    found = rules.inside_intervals(profile(interval_sections=sections, interval_section_comparison=changes))
    assert found.figures["part"] == "later_windows"
    assert (found.figures["first"].section, found.figures["second"].section) == ("train", "eval")
    assert found.figures["change"] == 108.0 and found.figures["held_by"].section == "eval"
    words = sentences.inside_intervals(SimpleNamespace(inside_intervals=found))
    assert words == (
        "**Inside the intervals**, the later windows are 71.0% train and 24.0% eval (over 4 analyzed runs with a"
        " profile at more than one moment); against the baseline they are 108 s longer per run, of which eval"
        " 96.0 s."
    )
    # without a baseline's interval sections, no comparison; without later windows, the opening block
    alone = rules.inside_intervals(profile(interval_sections=sections[3:]))
    assert alone.figures["part"] == "opening_block" and "change" not in alone.figures


def utilization_row(**figures) -> Row:
    values = {"collection": "c", "runs": 2, "gpu_hours": 0.0, "measured_gpu_hours": 0.0, "unmeasured_gpu_hours": 0.0}
    values.update(figures)
    if values.get("mean_gpu_utilization_pct") is not None:
        values["idle_gpu_hours"] = values["measured_gpu_hours"] * (1 - values["mean_gpu_utilization_pct"] / 100)
    return mart_row("agg_collection_utilization", **values)


def kind_row(kind: str, idle: float | None, share: float | None, mean: float | None) -> Row:
    return mart_row(
        "agg_collection_interval_kind_utilization",
        collection="c",
        interval_kind=kind,
        runs=2,
        gpu_hours=1.0,
        measured_gpu_hours=1.0 if mean is not None else 0.0,
        unmeasured_gpu_hours=0.0,
        mean_gpu_utilization_pct=mean,
        idle_gpu_hours=idle,
        share_of_idle_gpu_hours=share,
    )


def test_gpu_utilization_is_said_only_where_samples_measured_gpu_hours():
    assert rules.gpu_utilization(profile()) is None
    unmeasured = utilization_row(gpu_hours=1.0, measured_gpu_hours=0.0)
    assert rules.gpu_utilization(profile(utilization=unmeasured)) is None
    measured = utilization_row(gpu_hours=3.0, measured_gpu_hours=2.0, mean_gpu_utilization_pct=75.0)
    kinds = [kind_row("a -> b", None, None, None), kind_row("epoch_end -> run_end", 0.4, 0.8, 60.0)]
    finding = rules.gpu_utilization(profile(utilization=measured, utilization_kinds=kinds))
    assert finding.figures["idlest_kind"].interval_kind == "epoch_end -> run_end"  # the first measured one


def test_the_gpu_utilization_sentence_names_the_idlest_kind():
    """2 measured of 3 held GPU-hours at 75%: 0.5 idle GPU-hours; the kind: 60% busy, 80% of the idle."""
    measured = utilization_row(gpu_hours=3.0, measured_gpu_hours=2.0, mean_gpu_utilization_pct=75.0)
    kinds = [kind_row("epoch_end -> run_end", 0.4, 0.8, 60.0)]
    findings = rules.evaluate(profile(utilization=measured, utilization_kinds=kinds))
    assert sentences.gpu_utilization(findings) == (
        "**GPU utilization**: the GPUs were 75.0% busy over 2.00 measured GPU-hours (of 3.00 GPU-hours held by"
        " 2 runs with samples): 0.500 idle GPU-hours, the most in `epoch_end -> run_end` intervals, 80.0% of the"
        " idle GPU-hours (60.0% busy)."
    )


def step_task_row(name: str, loading: float, has_gpu: bool = True, bound_share: float = 0.2) -> Row:
    """A task's profiled steps: 5 steps of 0.1 s, `loading` of their wall time in the DataLoader;
    is_input_bound as the mart computes it (data loading above input_bound_share)."""
    gpu = 0.25 if has_gpu else None
    return mart_row(
        "agg_task_steps",
        collection="c",
        task=name,
        steps=5,
        runs=1,
        run_ranks=1,
        has_gpu_events=has_gpu,
        wall_seconds=0.5,
        mean_step_seconds=0.1,
        data_loading_seconds=0.5 * loading,
        data_loading_share=loading,
        is_input_bound=loading > bound_share,
        gpu_span_seconds=0.4 if has_gpu else None,
        idle_share=gpu,
        compute_share=0.7 if has_gpu else None,
        non_compute_share=0.05 if has_gpu else None,
        communication_share=0.0 if has_gpu else None,
        memory_share=0.05 if has_gpu else None,
        host_wait_share=0.9 if has_gpu else None,
        kernel_wait_share=0.1 if has_gpu else None,
        other_idle_share=0.0 if has_gpu else None,
    )


def step_part(name: str, part: str, share: float) -> Row:
    return mart_row(
        "agg_task_step_parts", collection="c", task=name, part=part, seconds=0.4 * share, share_of_gpu_span=share
    )


def steps_profile(tasks: list[Row], parts: list[Row], stragglers: list[Row] = ()) -> CollectionProfile:
    has_gpu = any(task.has_gpu_events for task in tasks)
    collection = mart_row(
        "agg_collection_steps",
        collection="c",
        steps=5 * len(tasks),
        runs=len(tasks),
        run_ranks=len(tasks),
        has_gpu_events=has_gpu,
        wall_seconds=0.5 * len(tasks),
        mean_step_seconds=0.1,
        data_loading_seconds=0.1,
        data_loading_share=0.1,
        is_input_bound=False,
        gpu_span_seconds=0.4 if has_gpu else None,
        idle_share=0.25 if has_gpu else None,
        compute_share=None,
        non_compute_share=None,
        communication_share=None,
        memory_share=None,
        host_wait_share=None,
        kernel_wait_share=None,
        other_idle_share=None,
    )
    build = SimpleNamespace(input_bound_share=0.2)
    return profile(steps=collection, step_tasks=tasks, step_parts=parts, step_stragglers=list(stragglers), build=build)


def test_no_traces_no_step_findings():
    findings = rules.evaluate(profile())
    assert findings.inside_steps is None and findings.step_tasks == []


@pytest.mark.parametrize(
    ("loading", "key"), [(0.2, "fed"), (0.2001, "input_bound"), (0.31, "input_bound"), (0.0, "fed")]
)
def test_a_task_is_input_bound_above_the_input_bound_share_only(loading, key):
    """The verdict is the mart's is_input_bound (def_input_bound: above 0.2, not at it)."""
    found = rules.evaluate(steps_profile([step_task_row("t", loading)], []))
    assert found.inside_steps.key == key
    assert found.step_tasks[0].key == key


def test_the_input_bound_answer_says_how_long_the_gpu_waited_for_data():
    """0 workers: 31% of each step in the DataLoader (above 20%): input-bound; the collection's GPU
    idle share 25%."""
    tasks = [step_task_row("w0", 0.31), step_task_row("w4", 0.014)]
    findings = rules.evaluate(steps_profile(tasks, []))
    assert sentences.inside_steps(findings) == (
        "**Inside a step** (10 profiled steps of 2 runs with profiler traces): the GPU waited for data 31.0% of"
        " each step in `w0`: input-bound (data loading above 20% of the step); the GPU was idle 25.0% of its time"
        " in the steps."
    )


def test_a_fed_answer_names_the_largest_data_loading_share():
    findings = rules.evaluate(steps_profile([step_task_row("w4", 0.014)], []))
    assert sentences.inside_steps(findings) == (
        "**Inside a step** (5 profiled steps of 1 run with profiler traces): no task waits for data: data loading"
        " takes at most 1.4% of a step (`w4`), within the 20% input-bound share; the GPU was idle 25.0% of its"
        " time in the steps."
    )


def test_a_task_sentence_gives_the_split_largest_first_as_the_mart_orders_it():
    parts = [step_part("w0", "computation", 0.697), step_part("w0", "idle", 0.288), step_part("w0", "memory", 0.015)]
    findings = rules.evaluate(steps_profile([step_task_row("w0", 0.31)], parts))
    assert sentences.step_tasks(findings) == [
        "`w0` (5 steps, mean 0.100 s): the GPU waited for data 31.0% of each step, input-bound. The GPU's time:"
        " computation 69.7%, idle 28.8%, memory 1.5%; its idle time went to host wait 90.0%, kernel wait 10.0%,"
        " other 0%."
    ]


def test_a_cpu_only_task_has_no_gpu_breakdown_never_zero_idle():
    findings = rules.evaluate(steps_profile([step_task_row("cpu", 0.5, has_gpu=False)], []))
    assert findings.step_tasks[0].figures["cpu_only"]
    words = sentences.step_tasks(findings)[0]
    assert "no GPU breakdown" in words and "idle" not in words
    assert words.startswith("`cpu` (5 steps, mean 0.100 s): the steps waited for data 50.0% of each step")
    assert "no GPU breakdown" in sentences.inside_steps(findings)
    table = tables.steps_table(steps_profile([step_task_row("cpu", 0.5, has_gpu=False)], []))
    assert table.rows[0][5:] == ["no GPU"] * 6


def test_the_rank_that_held_the_steps_is_named_for_several_ranks():
    """Rank 1 launched its first collective last in 3 of 4 steps; the others waited 12 ms per step."""
    held = mart_row(
        "agg_task_step_stragglers",
        collection="c",
        task="ddp",
        runs=1,
        max_ranks=2,
        matched_steps=4,
        straggling_rank=1,
        held_steps=3,
        held_share=0.75,
        mean_waited_seconds=0.012,
    )
    findings = rules.evaluate(steps_profile([step_task_row("ddp", 0.05, has_gpu=False)], [], [held]))
    assert sentences.step_tasks(findings)[0].endswith(
        "Rank 1 held 3 of 4 steps matched across up to 2 ranks (the last to launch its first collective); the other"
        " ranks waited 0.012 s for it per step."
    )


def test_a_collection_of_traces_alone_says_it_has_no_wall_time_figures():
    alone = profile(snapshot={"runs": 0, "trace_runs": 2, "runs_analyzed": 0})
    assert rules.traces_only(alone) and not rules.traces_only(profile())
