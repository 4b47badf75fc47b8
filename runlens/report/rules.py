"""The rules that choose the report's sentences and sections.

Each rule reads figures the marts computed and returns a finding (a short key plus the figures the
sentence quotes) or None when the figures do not support any statement. sentences.py turns a
finding into words; no sentence appears without its rule firing, and no section appears
with nothing to say: `not_shown` lists those, with the reason, on one line. The thresholds are
named below and documented in rules.md beside this file: change both together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from runlens.report import units
from runlens.report.data import CollectionProfile
from runlens.report.rows import Row
from runlens.report.units import SPEEDUP_SAME, factor, is_about_the_same

# Coarse split: the part of wall time before the final epoch end that counts as "most of it".
PRE_TAIL_MAJORITY_SHARE = 0.75
# ... and the tail share from which finalization dominates instead.
TAIL_MAJORITY_SHARE = 0.50
# A final tail below this share of wall time is negligible; at or above it is not.
TAIL_NEGLIGIBLE_SHARE = 0.05
# An interval label that is the longest in more than this share of runs is "usually" the longest.
USUALLY_LONGEST_SHARE = 0.5
# Task dependence: the slowest task's mean over the fastest's from which task drives the variation.
TASK_SPREAD_RATIO = 1.5
# Slowest and fastest tasks: at most this many each, and never more than half the tasks, so the
# two lists never name the same task.
TASKS_NAMED = 3
# A comparison whose factor (slower over faster) is at least this is "much" faster or slower.
LARGE_FACTOR = 2.0
# A sweep whose runs overlapped less than this on average ran about one run at a time.
ONE_AT_A_TIME_MEAN = 1.5
# A collection whose median analyzed run has at least this many epoch ends is many-epoch: its
# profile shows the epoch section instead of the checkpoint-to-checkpoint line (rules.md says why 5).
MANY_EPOCHS_MEDIAN = 5
# The first epoch is slower (faster) than the rest when the mean of the runs' first-epoch ratios
# is at least this (at most its inverse); in between, it is about as long.
FIRST_EPOCH_RATIO = 1.2
# Profiler sections answer "where the time goes" only when the named ones hold at least this share
# of the profiled wall time together; else most of it is unattributed, and a small named section
# (a log's checkpoint saves) would hide where the time went: the intervals between markers answer.
SECTIONS_ATTRIBUTE_SHARE = 0.5
# A profiler section whose name says it saves (measured checkpoint saving).
SAVING_SECTION = re.compile(r"save|checkpoint", re.IGNORECASE)


# Goodput: the answer names at most this many of the buckets that took the rest of the time.
GOODPUT_COSTS_NAMED = 4


@dataclass(frozen=True)
class Finding:
    key: str
    figures: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Findings:
    largest_share: Finding | None
    span_use: Finding | None
    baseline_change: Finding | None
    live_sweep: Finding | None
    stragglers: Finding | None
    coarse_split: Finding | None
    longest_interval: Finding | None
    later_windows: Finding | None
    tail_weight: Finding | None
    task_spread: Finding | None
    saving_unmeasured: Finding | None
    limits: list[Finding]
    not_shown: list[Finding]
    many_epochs: Finding | None = None
    first_epoch: Finding | None = None
    final_epoch_end_tail: Finding | None = None
    coinciding_markers: Finding | None = None
    gpu_hours: Finding | None = None
    ranks: Finding | None = None
    goodput: Finding | None = None
    goodput_unmeasured: list[Finding] = field(default_factory=list)
    named_tasks: int = 0
    unmapped_sections: Finding | None = None
    inside_intervals: Finding | None = None
    gpu_utilization: Finding | None = None
    eta_range: Finding | None = None
    inside_steps: Finding | None = None
    step_tasks: list[Finding] = field(default_factory=list)


def tied_groups(items: list, share_of) -> tuple[list, list]:
    """The items that share the largest share as printed (units.percent: a tie is named together,
    never ranked), and the group that shares the next one; `items` come largest first."""

    def group(rest: list) -> list:
        if not rest:
            return []
        printed = units.percent(share_of(rest[0]))
        tied = 1
        while tied < len(rest) and units.percent(share_of(rest[tied])) == printed:
            tied += 1
        return rest[:tied]

    leaders = group(items)
    return leaders, group(items[len(leaders) :])


def largest_share(profile: CollectionProfile) -> Finding | None:
    """The largest share of wall time the data can name: a profiler section when the named sections
    attribute most of the profiled time (SECTIONS_ATTRIBUTE_SHARE), else a kind of interval between
    markers, else a profiler section all the same, else the final tail. Shares that print the same
    are a tie (`leaders`, `following`: tied_groups)."""
    named = [
        section
        for section in profile.profile_sections
        if section.section != "unattributed" and section.share_of_wall is not None
    ]
    sections = None
    if named:
        leaders, following = tied_groups(named, lambda section: section.share_of_wall)
        sections = Finding("profiler_section", {"leaders": leaders, "following": following})
    if sections and sum(section.share_of_wall for section in named) >= SECTIONS_ATTRIBUTE_SHARE:
        return sections
    kinds = [kind for kind in profile.interval_kinds if kind.share_of_wall is not None and kind.total_seconds > 0]
    if kinds:
        first, second = kinds[0], kinds[1] if len(kinds) > 1 else None
        whole = coinciding_markers(profile)
        if (
            whole
            and whole.figures["whole_epochs"]
            and first.interval_kind == "epoch_end -> checkpoint"
            and profile.epochs is not None
        ):
            # one save per epoch, logged as the epoch ends: the largest kind is the epoch itself,
            # so the headline speaks of epochs (their number and length), not of two markers
            return Finding("whole_epochs", {"first": first, "second": second, "epochs": profile.epochs})
        leaders, following = tied_groups(kinds, lambda kind: kind.share_of_wall)
        return Finding("interval_kind", {"leaders": leaders, "following": following})
    if sections:
        return sections
    if profile.snapshot.mean_tail_share is not None:
        return Finding("final_tail")
    return None


def span_use(profile: CollectionProfile) -> Finding | None:
    """How the sweep used its span: one run at a time, or many at once."""
    span = profile.span
    if span is None or span.mean_concurrent_runs is None:
        return None
    if span.runs == 1:
        return Finding("single_run")
    if span.peak_concurrent_runs == 1:
        return Finding("never_overlapped")
    if span.mean_concurrent_runs < ONE_AT_A_TIME_MEAN:
        return Finding("one_at_a_time")
    return Finding("in_parallel")


def verdict(speedup: float | None, within: float = SPEEDUP_SAME) -> str | None:
    """`about_the_same` within a factor `within` either way (1 + the build's regression_threshold
    on a page), else `faster` / `slower`, with `much_` from LARGE_FACTOR."""
    if speedup is None or speedup <= 0:
        return None
    if is_about_the_same(speedup, within):
        return "about_the_same"
    much = "much_" if factor(speedup) >= LARGE_FACTOR else ""
    return much + ("faster" if speedup > 1 else "slower")


def baseline_change(profile: CollectionProfile) -> Finding | None:
    """The change against the baseline, on matched tasks when the two sides mix tasks differently."""
    comparison = profile.comparison
    if comparison is None:
        return None
    if comparison.baseline_runs_analyzed == 0:  # its profiled steps may still compare (step_comparison)
        return Finding("baseline_without_data", {"steps_compared": bool(profile.step_comparison)})
    if comparison.has_different_task_mix and comparison.matched_tasks == 0:
        return Finding("no_common_tasks")
    within = 1 + profile.build.regression_threshold if profile.build is not None else SPEEDUP_SAME
    said = verdict(profile.headline_speedup, within)
    if said is None:
        return None
    regressed = [task for task in profile.task_comparisons if task.is_regression]
    return Finding(said, {"matched": comparison.has_different_task_mix, "regressed": regressed})


def live_sweep(profile: CollectionProfile) -> Finding | None:
    """What is still going: the sweep's likely finish, stalled runs, or only abandoned ones.
    Which runs are running, stalled or abandoned is the marts' rule (def_stalled, def_abandoned)."""
    live = profile.live
    if live is None:
        return None
    if not live.is_live:
        return Finding("abandoned_only", abandoned_against(profile)) if live.runs_abandoned else None
    if live.runs_running == 0:
        return Finding("only_stalled_runs")
    if live.last_finish_at is None:
        return Finding("no_finish_estimate")
    return Finding("last_finish_estimated")


def eta_range(profile: CollectionProfile) -> Finding | None:
    """How often ranges like the page's held the true finish on the sweep's finished runs replayed as
    if live (agg_collection_eta_calibration, def_eta_calibration): `calibrated` when some replays'
    task or collection has a factor, `uncalibrated` when none has (too few replays: the ranges are
    the peers' uncorrected percentiles); nothing without a replay or a running run to say it of."""
    held, live = profile.eta_calibration, profile.live
    if held is None or live is None or not live.runs_running:
        return None
    key = "calibrated" if held.replays_calibrated else "uncalibrated"
    return Finding(key, {"runs": held.finished_runs, "after": held.coverage_after, "before": held.coverage_before})


def abandoned_against(profile: CollectionProfile) -> dict:
    """What the abandoned runs' silence was judged against (fct_run_live_status.abandon_threshold_basis,
    def_abandoned): one basis and one threshold when every abandoned run shares them, else None
    (each run's is in the abandoned table)."""
    runs = profile.abandoned_runs
    bases = {run.abandon_threshold_basis for run in runs}
    thresholds = {run.abandon_threshold_seconds for run in runs}
    same = len(bases) == 1 and (len(thresholds) == 1 or bases <= {"task", "collection"})
    return {
        "basis": next(iter(bases)) if same else None,
        "threshold": next(iter(thresholds)) if same and len(thresholds) == 1 else None,
    }


def stragglers(profile: CollectionProfile) -> Finding | None:
    summary = profile.straggler_summary
    if summary is None:
        return None
    if summary.runs_scored == 0:
        return Finding("not_scored")
    if summary.stragglers == 0:
        return Finding("none_flagged")
    return Finding("flagged")


def ranks(profile: CollectionProfile) -> Finding | None:
    """What the runs with several ranks lost to their slowest rank: the worst run with a straggling
    rank when there is one, else the share alone; a rank that stopped early is named either way."""
    waiting = profile.rank_waiting
    if waiting is None or not profile.distributed_runs:
        return None
    straggling = [run for run in profile.distributed_runs if run.straggling_rank is not None]
    stopped = [run for run in profile.distributed_runs if run.stopped_ranks]
    figures = {
        "waiting": waiting,
        "worst": straggling[0] if straggling else None,
        "stopped": stopped[0] if stopped else None,
    }
    return Finding("straggling_rank" if straggling else "no_straggling_rank", figures)


def goodput(profile: CollectionProfile) -> Finding | None:
    """The share of the collection's time that trained the model, and the buckets that took the
    most of the rest, largest first (a restart's down and redone time together: what restarts
    cost); in GPU-hours when every run names its GPUs, else in seconds of run time."""
    buckets = {bucket.bucket: bucket for bucket in profile.goodput}
    productive = buckets.get("productive")
    if productive is None or not productive.wall_seconds:
        return None
    in_gpu_hours = bool(productive.total_gpu_hours)

    def amount(name: str) -> float:
        bucket = buckets[name]
        return (bucket.gpu_hours or 0.0) if in_gpu_hours else bucket.seconds

    costs = []
    if amount("down") + amount("redone") > 0:
        costs.append({"bucket": "restarts", "amount": amount("down") + amount("redone")})
    costs += [
        {"bucket": name, "amount": amount(name)}
        for name in buckets
        if name not in ("productive", "down", "redone") and amount(name) > 0
    ]
    costs.sort(key=lambda cost: -cost["amount"])  # ties keep the buckets' order
    figures = {
        "share": productive.share_of_gpu_hours if in_gpu_hours else productive.share_of_wall,
        "total": productive.total_gpu_hours if in_gpu_hours else productive.wall_seconds,
        "productive": amount("productive"),
        "costs": costs[:GOODPUT_COSTS_NAMED],
        "down": amount("down"),
        "redone": amount("redone"),
        "more_costs": max(len(costs) - GOODPUT_COSTS_NAMED, 0),
        # a run without training sections counts all that is left as productive
        "is_upper_bound": productive.runs_unmeasured > 0,
    }
    return Finding("gpu_hours" if in_gpu_hours else "run_time", figures)


def goodput_unmeasured(profile: CollectionProfile) -> list[Finding]:
    """The buckets the logs could not measure, with the runs they miss and at most how much time
    the measured buckets may hold of them."""
    buckets = {bucket.bucket: bucket for bucket in profile.goodput}
    found = []
    for name, key in (
        ("start_up", "start_up_unmeasured"),
        ("productive", "sections_unmeasured"),
        ("redone", "restores_inferred"),
        ("final_tail", "final_tail_unmeasured"),
    ):
        bucket = buckets.get(name)
        if bucket is not None and bucket.runs_unmeasured:
            found.append(
                Finding(key, {"runs": bucket.runs_unmeasured, "of": bucket.runs, "seconds": bucket.unmeasured_seconds})
            )
    return found


def unmapped_sections(profile: CollectionProfile) -> Finding | None:
    """The profiler sections that map to no goodput bucket (agg_collection_profile_sections
    .goodput_bucket NULL), so the page names them and the var that maps them: goodput counts their
    seconds as unattributed beside the time in no section where a section maps to training
    (`beside_training`), else within productive time, an upper bound (`without_training`)."""
    sections = [
        section
        for section in profile.profile_sections
        if section.section != "unattributed" and section.goodput_bucket is None
    ]
    if not sections:
        return None
    training = any(section.goodput_bucket == "training" for section in profile.profile_sections)
    return Finding("beside_training" if training else "without_training", {"sections": sections})


def coarse_split(profile: CollectionProfile) -> Finding | None:
    snapshot = profile.snapshot
    pre, tail = snapshot.mean_pre_tail_share, snapshot.mean_tail_share
    if pre is None or tail is None:
        return None
    if pre >= PRE_TAIL_MAJORITY_SHARE:
        return Finding("mostly_before_final_epoch_end")
    if tail >= TAIL_MAJORITY_SHARE:
        return Finding("mostly_in_final_tail")
    return Finding("split_between_both")


def longest_interval(profile: CollectionProfile) -> Finding | None:
    if not profile.longest_intervals:
        return None
    top = profile.longest_intervals[0]
    if top.runs > USUALLY_LONGEST_SHARE * top.runs_with_intervals:
        return Finding("usually_longest", {"interval": top})
    # labels the longest in as many runs as the first are a tie: named together, never ranked
    tied = [interval for interval in profile.longest_intervals if interval.runs == top.runs]
    return Finding("no_usual_longest", {"interval": top, "tied": tied})


def later_windows(profile: CollectionProfile) -> Finding | None:
    windows = profile.later_windows
    if windows is None or not profile.longest_intervals or many_epochs(profile):
        return None
    opening = profile.longest_intervals[0]
    if opening.longest_interval_label.startswith("run_start ->") and windows.summed_mean_seconds > opening.mean_seconds:
        return Finding("windows_outweigh_opening", {"windows": windows})
    return None


def tail_weight(profile: CollectionProfile) -> Finding | None:
    share = profile.snapshot.mean_tail_share
    if share is None:
        return None
    if share >= TAIL_NEGLIGIBLE_SHARE:
        return Finding("tail_not_negligible")
    return Finding("tail_negligible")


def named_tasks(profile: CollectionProfile) -> int:
    """How many slowest and fastest tasks the profile names: never more than half the tasks."""
    return min(TASKS_NAMED, len(profile.tasks) // 2)


def task_spread(profile: CollectionProfile) -> Finding | None:
    ratio = profile.snapshot.slowest_to_fastest_task_ratio
    if len(profile.tasks) < 2 or ratio is None:
        return None
    if ratio >= TASK_SPREAD_RATIO:
        return Finding("task_drives_variation", {"ratio": ratio})
    return Finding("tasks_similar", {"ratio": ratio})


def saving_unmeasured(profile: CollectionProfile) -> Finding | None:
    """Checkpoint saves are point events in the log: the time of saving sits in the intervals.
    Said only when no profiler section measured saving."""
    if not profile.longest_intervals:
        return None
    if any(SAVING_SECTION.search(section.section) for section in profile.profile_sections):
        return None
    return Finding("saving_unmeasured")


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
        if kind.interval_kind != "... -> run_start"
        and kind.intervals > 0
        and kind.zero_second_intervals == kind.intervals
    ]
    if not kinds:
        return None
    # every checkpoint at its epoch end (a save logged as the epoch ends, as importers of text logs
    # see it): `epoch_end -> checkpoint` then spans a whole epoch, not validation and saving alone
    whole_epochs = "checkpoint -> epoch_end" in kinds and any(
        kind.interval_kind == "epoch_end -> checkpoint" for kind in profile.interval_kinds
    )
    # the markers cannot split such an epoch; profiles written at more than one moment can
    split_by_profiles = bool(profile.interval_sections)
    return Finding(
        "markers_coincide", {"kinds": kinds, "whole_epochs": whole_epochs, "split_by_profiles": split_by_profiles}
    )


def gpu_hours(profile: CollectionProfile) -> Finding | None:
    """GPU-hours are quoted only when every run names its GPUs; otherwise they are unknown."""
    if profile.span is None:
        return None
    if profile.span.gpu_hours is None:
        return Finding("gpu_hours_unknown", {"runs_with_gpus": profile.span.runs_with_gpus})
    return Finding("gpu_hours_known")


def gpu_utilization(profile: CollectionProfile) -> Finding | None:
    """How busy the GPUs were, where utilization samples measured any GPU-hours, with the kind of
    interval that left the most GPU-hours idle (def_utilization_rollups)."""
    utilization = profile.utilization
    if utilization is None or not utilization.measured_gpu_hours:
        return None
    idlest = next((kind for kind in profile.utilization_kinds if kind.idle_gpu_hours is not None), None)
    return Finding("gpu_utilization", {"collection": utilization, "idlest_kind": idlest})


def inside_steps(profile: CollectionProfile) -> Finding | None:
    """What the collection's profiled steps say, where its runs carry profiler traces
    (agg_collection_steps): `input_bound` when a task's steps wait for data (agg_task_steps.
    is_input_bound, def_input_bound), the most input-bound first; else `fed`."""
    if profile.steps is None:
        return None
    bound = [task for task in profile.step_tasks if task.is_input_bound]
    figures = {"steps": profile.steps, "tasks": bound or profile.step_tasks, "build": profile.build}
    # against the baseline: the part of the step that moved most (cmp_collection_step_parts), if any did
    moved = next((row for row in profile.step_comparison if row.change_seconds_per_step), None)
    figures["moved"] = moved
    return Finding("input_bound" if bound else "fed", figures)


def traces_only(profile: CollectionProfile) -> bool:
    """Whether every run of the collection is a profiler trace on its own (def_trace_runs): no log,
    so no wall-time figures, only the steps inside its traces."""
    return profile.snapshot.runs == 0 and profile.snapshot.trace_runs > 0


def step_task(profile: CollectionProfile, task: Row) -> Finding:
    """One task's steps: `input_bound` or `fed` (is_input_bound), with the parts of its GPU time
    largest first (agg_task_step_parts) or none for a CPU-only trace (`cpu_only`: it has no GPU
    breakdown, never 0% idle), and the rank that held its steps when several ranks ran them."""
    parts = [part for part in profile.step_parts if part.task == task.task]
    held = next((row for row in profile.step_stragglers if row.task == task.task), None)
    figures = {"task": task, "cpu_only": not task.has_gpu_events, "parts": parts, "held_by": held}
    return Finding("input_bound" if task.is_input_bound else "fed", figures)


def limits(profile: CollectionProfile) -> list[Finding]:
    """What the data cannot say, in a fixed order."""
    snapshot, found = profile.snapshot, []
    if snapshot.measurement_source == "event_log" and not profile.profile_sections:
        found.append(Finding("coarse_attribution_only"))
    if snapshot.measurement_source == "profiler":
        found.append(Finding("profiler_wall_time_only"))
    if snapshot.measurement_source == "mixed":
        found.append(Finding("mixed_sources"))
    if snapshot.runs_analyzed and snapshot.mean_tail_share is None:
        found.append(Finding("no_epoch_end_split"))
    if profile.comparison is not None and profile.comparison.sources_match is False:
        found.append(Finding("comparison_sources_differ", {"comparison": profile.comparison}))
    if profile.approximations:
        found.append(Finding("approximate_markers"))
    if snapshot.runs_excluded:
        found.append(Finding("excluded_runs"))
    if profile.data_quality.rejected or profile.data_quality.unreadable_files:
        found.append(Finding("rejected_lines"))
    return found


def not_shown(profile: CollectionProfile, findings: Findings) -> list[Finding]:
    """The sections with nothing to say, each with its reason, for the one "Not shown" line."""
    snapshot, hidden = profile.snapshot, []
    if findings.live_sweep is None or findings.live_sweep.key == "abandoned_only":
        hidden.append(Finding("still_running", {"abandoned": bool(profile.abandoned_runs)}))
    if profile.comparison is None:
        hidden.append(Finding("baseline_not_named"))
    elif profile.comparison.baseline_runs_analyzed == 0:
        hidden.append(
            Finding(
                "baseline_without_runs",
                {"baseline": profile.comparison.baseline_title, "steps_compared": bool(profile.step_comparison)},
            )
        )
    if not profile.profile_sections:
        hidden.append(Finding("no_profiler_sections"))
    if profile.utilization is None:
        hidden.append(Finding("no_utilization_samples"))
    if findings.many_epochs is None and snapshot.runs_analyzed:
        hidden.append(Finding("few_epochs"))
    if findings.stragglers is not None and findings.stragglers.key != "flagged":
        hidden.append(Finding(findings.stragglers.key, {"summary": profile.straggler_summary}))
    if len(profile.tasks) < 2 and snapshot.runs_analyzed:
        hidden.append(Finding("one_task"))
    if snapshot.runs_analyzed == 0:
        hidden.append(Finding("no_analyzed_runs"))
    return hidden


def evaluate(profile: CollectionProfile) -> Findings:
    found = Findings(
        largest_share=largest_share(profile),
        span_use=span_use(profile),
        baseline_change=baseline_change(profile),
        live_sweep=live_sweep(profile),
        eta_range=eta_range(profile),
        stragglers=stragglers(profile),
        coarse_split=coarse_split(profile),
        longest_interval=longest_interval(profile),
        later_windows=later_windows(profile),
        tail_weight=tail_weight(profile),
        task_spread=task_spread(profile),
        saving_unmeasured=saving_unmeasured(profile),
        limits=limits(profile),
        not_shown=[],
        many_epochs=many_epochs(profile),
        first_epoch=first_epoch(profile),
        final_epoch_end_tail=final_epoch_end_tail(profile),
        coinciding_markers=coinciding_markers(profile),
        gpu_hours=gpu_hours(profile),
        ranks=ranks(profile),
        goodput=goodput(profile),
        goodput_unmeasured=goodput_unmeasured(profile),
        named_tasks=named_tasks(profile),
        unmapped_sections=unmapped_sections(profile),
        inside_intervals=inside_intervals(profile),
        gpu_utilization=gpu_utilization(profile),
        inside_steps=inside_steps(profile),
        step_tasks=[step_task(profile, task) for task in profile.step_tasks],
    )
    return replace(found, not_shown=not_shown(profile, found))


# the parts of a run whose sections a page names first: the later windows, where the work is
INSIDE_PARTS = ("later_windows", "opening_block", "final_tail")
# what is no section's: not named as a section's share
NO_SECTION = ("unattributed", "unprofiled")


def inside_intervals(profile: CollectionProfile) -> Finding | None:
    """What the first part of INSIDE_PARTS the runs have was spent on: its two largest sections
    (agg_collection_interval_sections), and against the baseline, how much longer or shorter the
    part is per run and which section holds most of that change, in its direction
    (cmp_collection_interval_sections)."""
    rows = profile.interval_sections
    part = next((name for name in INSIDE_PARTS if any(row.wall_time_part == name for row in rows)), None)
    if part is None:
        return None
    sections = [row for row in rows if row.wall_time_part == part and row.section not in NO_SECTION]
    sections = [row for row in sections if row.seconds > 0]
    if not sections:
        return None
    figures = {"part": part, "first": sections[0], "second": sections[1] if len(sections) > 1 else None}
    figures["runs"] = sections[0].runs
    changes = [row for row in profile.interval_section_comparison if row.wall_time_part == part]
    if changes:
        change = changes[0].part_change_seconds
        same_way = [row for row in changes if row.section not in NO_SECTION and row.change_seconds * change > 0]
        figures["change"] = change
        figures["held_by"] = max(same_way, key=lambda row: abs(row.change_seconds)) if same_way else None
    return Finding("inside_intervals", figures)


def no_runs(data_quality: Row) -> Finding:
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
