"""The rules that choose the report's interpretive sentences.

Each rule reads figures the marts computed and returns a finding (a short key plus the figures
the sentence quotes) or None when the figures do not support any statement. The template turns a
finding's key into words; no sentence appears without its rule firing. The thresholds are named
below and documented in rules.md beside this file: change both together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runlens.report.data import CollectionProfile, DataQuality

# Coarse split: the part of wall time before the final epoch end that counts as "most of it".
PRE_TAIL_MAJORITY_PERCENT = 75.0
# ... and the tail share from which finalization dominates instead.
TAIL_MAJORITY_PERCENT = 50.0
# A final tail below this share of wall time is negligible; at or above it is not.
TAIL_NEGLIGIBLE_PERCENT = 5.0
# An interval label that is the longest in more than this share of runs is "usually" the longest.
USUALLY_LONGEST_SHARE = 0.5
# Task dependence: the slowest task's mean over the fastest's from which task drives the variation.
TASK_SPREAD_RATIO = 1.5
# The slowest task's tail share within this many percentage points of the collection's is "similar".
SIMILAR_TAIL_SHARE_POINTS = 5.0
# A comparison ratio at or beyond this (either way) is a large difference.
LARGE_SPEEDUP = 2.0
# A profiler section holding at least this share of the profiled wall time dominates it.
DOMINANT_SECTION_PERCENT = 50.0
# A collection whose median analysed run has at least this many epoch ends is many-epoch: its
# profile shows the epoch section instead of the pre-epoch windows (rules.md says why 5).
MANY_EPOCHS_MEDIAN = 5
# The first epoch is slower (faster) than the rest when the mean of the runs' first-epoch ratios
# is at least this (at most its inverse); in between, it is about as long.
FIRST_EPOCH_RATIO = 1.2


@dataclass(frozen=True)
class Finding:
    key: str
    figures: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Findings:
    coarse_split: Finding | None
    longest_interval: Finding | None
    later_windows: Finding | None
    tail_weight: Finding | None
    task_spread: Finding | None
    slow_throughout: Finding | None
    comparison_size: Finding | None
    dominant_section: Finding | None
    limits: list[Finding]
    many_epochs: Finding | None = None
    first_epoch: Finding | None = None
    final_epoch_end_tail: Finding | None = None
    coinciding_markers: Finding | None = None
    live_sweep: Finding | None = None
    gpu_hours: Finding | None = None


def coarse_split(profile: CollectionProfile) -> Finding | None:
    snapshot = profile.snapshot
    pre, tail = snapshot.mean_pre_tail_share_percent, snapshot.mean_tail_share_percent
    if pre is None or tail is None:
        return None
    if pre >= PRE_TAIL_MAJORITY_PERCENT:
        return Finding("mostly_before_final_epoch_end")
    if tail >= TAIL_MAJORITY_PERCENT:
        return Finding("mostly_in_final_tail")
    return Finding("split_between_both")


def longest_interval(profile: CollectionProfile) -> Finding | None:
    if not profile.longest_intervals:
        return None
    top = profile.longest_intervals[0]
    if top.runs > USUALLY_LONGEST_SHARE * top.runs_with_intervals:
        return Finding("usually_longest", {"interval": top})
    return Finding("no_usual_longest", {"interval": top})


def later_windows(profile: CollectionProfile) -> Finding | None:
    windows = profile.later_windows
    if windows is None or not profile.longest_intervals or many_epochs(profile):
        return None
    opening = profile.longest_intervals[0]
    if opening.label.startswith("run_start ->") and windows.summed_mean_minutes > opening.mean_minutes:
        return Finding("windows_outweigh_opening", {"windows": windows})
    return None


def tail_weight(profile: CollectionProfile) -> Finding | None:
    share = profile.snapshot.mean_tail_share_percent
    if share is None:
        return None
    if share >= TAIL_NEGLIGIBLE_PERCENT:
        return Finding("tail_not_negligible")
    return Finding("tail_negligible")


def task_spread(profile: CollectionProfile) -> Finding | None:
    if len(profile.tasks) < 2 or profile.tasks[0].slowest_to_fastest_ratio is None:
        return None
    ratio = profile.tasks[0].slowest_to_fastest_ratio
    if ratio >= TASK_SPREAD_RATIO:
        return Finding("task_drives_variation", {"ratio": ratio})
    return Finding("tasks_similar", {"ratio": ratio})


def slow_throughout(profile: CollectionProfile) -> Finding | None:
    if len(profile.tasks) < 2:
        return None
    slowest, collection_share = profile.tasks[0], profile.snapshot.mean_tail_share_percent
    if slowest.mean_tail_share_percent is None or collection_share is None:
        return None
    if abs(slowest.mean_tail_share_percent - collection_share) <= SIMILAR_TAIL_SHARE_POINTS:
        return Finding("slow_throughout", {"task": slowest})
    return None


def comparison_size(profile: CollectionProfile) -> Finding | None:
    comparison = profile.comparison
    if comparison is None or comparison.speedup is None:
        return None
    if comparison.speedup >= LARGE_SPEEDUP:
        return Finding("much_faster")
    if comparison.speedup <= 1 / LARGE_SPEEDUP:
        return Finding("much_slower")
    return Finding("similar_speed")


def dominant_section(profile: CollectionProfile) -> Finding | None:
    named = [section for section in profile.profile_sections if section.section != "unattributed"]
    if named and named[0].share_percent is not None and named[0].share_percent >= DOMINANT_SECTION_PERCENT:
        return Finding("dominant_section", {"section": named[0]})
    return None


def many_epochs(profile: CollectionProfile) -> Finding | None:
    """The collection's median run has at least MANY_EPOCHS_MEDIAN epoch ends."""
    epochs = profile.epochs
    if epochs is None or epochs.median_epochs_per_run < MANY_EPOCHS_MEDIAN:
        return None
    return Finding("many_epochs", {"epochs": epochs})


def first_epoch(profile: CollectionProfile) -> Finding | None:
    """The first epoch against the median of the later ones (mean of the per-run ratios)."""
    epochs = profile.epochs
    if epochs is None or epochs.mean_first_epoch_ratio is None:
        return None
    if epochs.mean_first_epoch_ratio >= FIRST_EPOCH_RATIO:
        return Finding("first_epoch_slower")
    if epochs.mean_first_epoch_ratio <= 1 / FIRST_EPOCH_RATIO:
        return Finding("first_epoch_faster")
    return Finding("first_epoch_similar")


def final_epoch_end_tail(profile: CollectionProfile) -> Finding | None:
    """Runs whose run_end is at their final epoch_end have no final tail to speak of."""
    epochs = profile.epochs
    if epochs is None or epochs.runs_ending_at_final_epoch_end == 0:
        return None
    if epochs.runs_ending_at_final_epoch_end == epochs.runs_with_epochs:
        return Finding("every_run_ends_at_final_epoch_end")
    return Finding("some_runs_end_at_final_epoch_end", {"runs": epochs.runs_ending_at_final_epoch_end})


def coinciding_markers(profile: CollectionProfile) -> Finding | None:
    """Kinds of interval that always last 0 s: their two markers are logged at the same moment."""
    kinds = [
        kind.interval_kind
        for kind in profile.interval_kinds
        if kind.interval_kind != "downtime" and kind.intervals > 0 and kind.zero_second_intervals == kind.intervals
    ]
    if not kinds:
        return None
    # every checkpoint at its epoch end (a save logged as the epoch ends, as importers of text logs
    # see it): `epoch_end -> checkpoint` then spans a whole epoch, not validation and saving alone
    whole_epochs = "checkpoint -> epoch_end" in kinds and any(
        kind.interval_kind == "epoch_end -> checkpoint" for kind in profile.interval_kinds
    )
    return Finding("markers_coincide", {"kinds": kinds, "whole_epochs": whole_epochs})


def live_sweep(profile: CollectionProfile) -> Finding | None:
    """When a run is still going: when the sweep will likely be done, or why that cannot be said.
    Which runs are stalled is the mart's rule (fct_live_runs, def_stalled)."""
    live = profile.live
    if live is None or not live.is_live:
        return None
    if live.runs_running == 0:
        return Finding("only_stalled_runs")
    if live.last_finish_at is None:
        return Finding("no_finish_estimate")
    return Finding("last_finish_estimated")


def gpu_hours(profile: CollectionProfile) -> Finding | None:
    """GPU-hours are quoted only when every run names its GPUs; otherwise they are unknown."""
    if profile.span is None:
        return None
    if profile.span.gpu_hours is None:
        return Finding("gpu_hours_unknown", {"runs_with_gpus": profile.span.runs_with_gpus})
    return Finding("gpu_hours_known")


def limits(profile: CollectionProfile) -> list[Finding]:
    """What the data cannot say, in a fixed order."""
    snapshot, found = profile.snapshot, []
    if not profile.profile_sections:
        found.append(Finding("no_profiler_sections"))
    if snapshot.measurement_source == "event_log":
        found.append(Finding("coarse_attribution_only"))
    if snapshot.measurement_source == "profiler":
        found.append(Finding("profiler_wall_time_only"))
    if snapshot.measurement_source == "mixed":
        found.append(Finding("mixed_sources"))
    if snapshot.runs_analyzed and snapshot.mean_tail_share_percent is None:
        found.append(Finding("no_epoch_end_split"))
    if profile.comparison is not None and profile.comparison.sources_match is False:
        found.append(Finding("comparison_sources_differ", {"comparison": profile.comparison}))
    if profile.comparison is not None and profile.comparison.baseline_runs_analyzed == 0:
        found.append(Finding("baseline_without_data", {"comparison": profile.comparison}))
    if profile.approximations:
        found.append(Finding("approximate_markers"))
    if snapshot.runs_excluded:
        found.append(Finding("excluded_runs"))
    if profile.data_quality.rejected or profile.data_quality.unreadable_files:
        found.append(Finding("rejected_lines"))
    if snapshot.runs_analyzed == 0:
        found.append(Finding("no_analysed_runs"))
    return found


def evaluate(profile: CollectionProfile) -> Findings:
    return Findings(
        coarse_split=coarse_split(profile),
        longest_interval=longest_interval(profile),
        later_windows=later_windows(profile),
        tail_weight=tail_weight(profile),
        task_spread=task_spread(profile),
        slow_throughout=slow_throughout(profile),
        comparison_size=comparison_size(profile),
        dominant_section=dominant_section(profile),
        limits=limits(profile),
        many_epochs=many_epochs(profile),
        first_epoch=first_epoch(profile),
        final_epoch_end_tail=final_epoch_end_tail(profile),
        coinciding_markers=coinciding_markers(profile),
        live_sweep=live_sweep(profile),
        gpu_hours=gpu_hours(profile),
    )


def no_runs(data_quality: DataQuality) -> Finding:
    """Why the index lists no collection: the build read no log file, or none of the files it read
    gave a run."""
    if data_quality.files == 0:
        return Finding("no_log_files")
    return Finding(
        "no_runs_in_log_files",
        {
            "files": data_quality.files,
            "accepted": data_quality.accepted,
            "other_events": data_quality.other_events,
            "rejected": data_quality.rejected,
        },
    )
