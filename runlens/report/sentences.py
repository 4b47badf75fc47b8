"""The words of the page's answer: each finding of rules.py (which sentence, with which figures)
as the sentence a reader gets, its figures formatted by units.py and its names escaped once
(markdown.py). The template only places these sentences."""

from __future__ import annotations

from runlens.plural import plural
from runlens.report import rules, units
from runlens.report.data import CollectionProfile
from runlens.report.markdown import escape_code, escape_text
from runlens.report.rules import Findings
from runlens.report.words import INSIDE_PART_WORDS, KIND_WORDS, SOURCE_WORDS, time


def code(value: str) -> str:
    return escape_code(value, table=False)


def goodput(answer: dict) -> str:
    """The goodput answer (tables.goodput_answer gives its figures as text)."""
    words = f"**Goodput: {'at most ' if answer['is_upper_bound'] else ''}{answer['share']}** of {answer['total']}"
    words += " GPU-hours" if answer["in_gpu_hours"] else " of run time"
    words += " trained the model"
    for index, cost in enumerate(answer["costs"]):
        words += ("; " if index == 0 else ", ") + cost["words"]
        if cost["bucket"] == "restarts":
            words += f" cost {cost['amount']} ({', '.join(answer['disruption_parts'])})"
        else:
            words += f" {cost['amount']}"
    if answer["more_costs"]:
        words += f", and {plural(answer['more_costs'], 'smaller bucket')}"
    return words + "."


def ranked(finding, leader, follower, share, of: str, one: str) -> str:
    """The largest share and the next one, each a tie when several print the same
    (rules.tied_groups): a tie is named together with "each", never ranked. `leader` and `follower`
    name an item where it stands; `one` opens the sentence of one largest ({names}: its name)."""
    leaders, following = finding.figures["leaders"], finding.figures["following"]
    names, largest = units.list_of(map(leader, leaders)), units.percent(share(leaders[0]))
    if len(leaders) == 1:
        words = f"{one.format(names=names)} {largest} of {of}"
    else:
        words = f"{names} take the most time, {largest} each of {of}"
    if len(following) == 1:
        words += f"; next comes {follower(following[0])} with {units.percent(share(following[0]))}"
    elif following:
        words += f"; next come {units.list_of(map(follower, following))} with {units.percent(share(following[0]))} each"
    return words


def largest_share(profile: CollectionProfile, findings: Findings) -> str:
    finding = findings.largest_share
    if finding.key == "profiler_section":
        words = ranked(
            finding,
            lambda section: f"**{escape_text(section.section)}**",
            lambda section: escape_text(section.section),
            lambda section: section.share_of_wall,
            "the profiled wall time",
            "{names} takes",
        )
        return words + f" (over {plural(finding.figures['leaders'][0].profiled_runs, 'profiled run')})."
    if finding.key == "interval_kind":
        tied = len(finding.figures["leaders"]) > 1
        words = ranked(
            finding,
            lambda kind: (
                f"{code(kind.interval_kind)} ({kind_holds(kind.interval_kind)})" if tied else code(kind.interval_kind)
            ),
            lambda kind: code(kind.interval_kind),
            lambda kind: kind.share_of_wall,
            "the summed wall time of the runs with markers",
            f"The most time goes to {{names}} ({kind_holds(finding.figures['leaders'][0].interval_kind)}):",
        )
        return words + "."
    top, following = finding.figures.get("first"), finding.figures.get("second")
    if finding.key == "whole_epochs":
        epochs = finding.figures["epochs"]
        words = (
            f"The time goes to epochs: a median of {units.setting(epochs.median_epochs_per_run)} per run,"
            f" {units.duration(epochs.mean_epoch_seconds)} each on average. Each save is logged as its epoch ends,"
            f" so {code(top.interval_kind)} is a whole epoch: {units.percent(top.share_of_wall)} of the summed wall"
            " time of the runs with markers"
        )
        if following:
            holds = (
                "start-up and the first epoch"
                if following.interval_kind == "run_start -> checkpoint"
                else kind_holds(following.interval_kind)
            )
            words += f"; {code(following.interval_kind)}, {holds}, {units.percent(following.share_of_wall)}"
        return words + "."
    return (
        f"The final tail after the last epoch end: mean tail share {units.percent(profile.snapshot.mean_tail_share)}"
        " (the mean of the analyzed runs' shares of their wall time); the rest passes before it."
    )


def kind_holds(kind: str) -> str:
    return KIND_WORDS.get(kind, "n/a")


def span_use(profile: CollectionProfile, findings: Findings) -> str:
    span, key = profile.span, findings.span_use.key
    so_far = " so far" if span.is_open else ""
    if key == "single_run":
        end = "the as-of time" if span.is_open else "its end"
        return f"One run, {units.duration(span.span_seconds)} from its start to {end}."
    opening = {
        "never_overlapped": "The runs ran one after another, never two at once: ",
        "one_at_a_time": "The sweep ran about one run at a time: ",
    }.get(key, "")
    return (
        f"{opening}{units.decimal(span.mean_concurrent_runs)} runs at once on average (peak"
        f" {units.count(span.peak_concurrent_runs)}), {units.duration(span.active_seconds)} of active time (run time"
        f" less restart downtime) in a span of {units.duration(span.span_seconds)}{so_far}."
    )


def baseline_change(profile: CollectionProfile, findings: Findings, wall) -> str:
    finding, comparison = findings.baseline_change, profile.comparison
    baseline = escape_text(comparison.baseline_title)
    raw_means = f"{wall(comparison.mean_wall_seconds)} against {wall(comparison.baseline_mean_wall_seconds)}"
    if finding.key == "baseline_without_data":
        if finding.figures.get("steps_compared"):
            return (
                f"The baseline {baseline} has no analyzed runs in this database, so no wall time compares; its"
                " profiled steps do (Inside a step)."
            )
        return f"The baseline {baseline} has no analyzed runs in this database, so there is nothing to compare with."
    if finding.key == "no_common_tasks":
        return (
            f"Against {baseline}: no task ran on both sides, so only the raw means compare ({raw_means},"
            f" {units.speedup(comparison.speedup)}), and they compare different work."
        )
    mixed = comparison.has_different_task_mix
    means = (
        f"{wall(comparison.matched_mean_wall_seconds)} against {wall(comparison.matched_baseline_mean_wall_seconds)}"
        if mixed
        else raw_means
    )
    headline = units.speedup(profile.headline_speedup)
    if finding.key == "about_the_same":
        threshold = units.setting_percent(profile.build.regression_threshold)
        words = f"Against {baseline}: about the same, within {threshold} ({headline}: "
    else:
        words = f"Against {baseline}: {headline} ("
    words += f"{means} mean wall time"
    if mixed:
        words += f" on the {plural(comparison.matched_tasks, 'task')} both ran, at this collection's task mix"
    words += ")."
    if mixed:
        words += (
            f" The raw means ({raw_means}, {units.speedup(comparison.speedup)}) mix tasks the two sides ran in"
            " other proportions."
        )
    if comparison.sources_match is False:
        words += (
            f" The two were measured differently ({source(comparison.measurement_source)} here,"
            f" {source(comparison.baseline_measurement_source)} there)."
        )
    regressed = finding.figures.get("regressed")
    if regressed:
        tasks = ", ".join(f"{escape_text(task.task)} ({units.speedup(task.speedup)})" for task in regressed)
        words += f" {plural(len(regressed), 'task')} regressed: {tasks}."
    return words


def source(code_name: str | None) -> str:
    return SOURCE_WORDS.get(code_name, "n/a") if code_name else "n/a"


def live_sweep(profile: CollectionProfile, findings: Findings) -> str:
    live, key = profile.live, findings.live_sweep.key
    if key == "abandoned_only":
        pronoun = "it is" if live.runs_abandoned == 1 else "they are"
        figures = findings.live_sweep.figures
        return (
            f"Nothing is running: {plural(live.runs_abandoned, 'run')} never finished and went silent for longer"
            f" than {silent_longer_than(figures['basis'], figures['threshold'])}, so {pronoun} counted as abandoned,"
            " not as running."
        )
    if key == "last_finish_estimated":
        words = (
            f"{plural(live.runs_running, 'run')} still running: the last will likely finish at"
            f" {time(live.last_finish_at)} (between {time(live.last_finish_calibrated_low_at)} and"
            f" {time(live.last_finish_calibrated_high_at)})"
        )
    elif key == "no_finish_estimate":
        words = (
            f"{plural(live.runs_running, 'run')} still running; no finish can be estimated yet, as no completed run"
            " has got as far"
        )
    else:
        words = (
            f"Nothing is running: {plural(live.runs_stalled, 'run')} stalled, silent for longer than its peers"
            " took for the next interval"
        )
    if live.runs_stalled and key != "only_stalled_runs":
        words += f"; {plural(live.runs_stalled, 'run')} stalled"
    if live.runs_abandoned:
        words += f"; {plural(live.runs_abandoned, 'run')} abandoned, counted apart"
    return words + "."


def silent_longer_than(basis: str | None, threshold: float | None) -> str:
    """What an abandoned run's silence was longer than (rules.abandoned_against, def_abandoned)."""
    if basis == "task":
        return "any completed run of its task took for the whole run"
    if basis == "collection":
        return "any completed run of its collection took for the whole run (its task has no completed run)"
    if basis == "no_completed_run":
        return (
            f"{units.duration(threshold)}, the most runlens waits when no run of its collection has completed"
            " (`abandon_horizon_seconds`)"
        )
    if basis == "horizon":
        return (
            f"{units.duration(threshold)}, the most runlens waits (`abandon_horizon_seconds`), though a completed"
            " run of its collection took longer"
        )
    if basis == "stall_threshold":
        return (
            f"its stall threshold, {units.duration(threshold)} (longer than the longest completed run it is otherwise"
            " judged against)"
        )
    return "its abandon threshold (each run's, and what it was judged against, are listed below)"


def ranks(findings: Findings) -> str:
    figures = findings.ranks.figures
    waiting, worst, stopped = figures["waiting"], figures.get("worst"), figures.get("stopped")
    words = f"{plural(waiting.distributed_runs, 'run')} with more than one rank"
    if waiting.lost_share is not None:
        words += f" lost {units.percent(waiting.lost_share)} of their wall time waiting for the slowest rank"
    if worst:
        words += (
            f"; in {code(worst.run_id)}, rank {units.count(worst.straggling_rank)} of"
            f" {units.count(worst.world_size)} held the others back"
        )
        if worst.lost_share is not None:
            words += f" ({units.percent(worst.lost_share)} of its wall time)"
    if stopped:
        ended = (
            f"ended {code(stopped.first_stopped_rank_status)}"
            if stopped.first_stopped_rank_status
            else f"stopped after {code(stopped.first_stopped_rank_last_marker)}"
        )
        words += (
            f"; in {code(stopped.run_id)}, rank {units.count(stopped.first_stopped_rank)} {ended} while the others"
            " went on"
        )
    return words + "."


def stragglers(profile: CollectionProfile) -> str:
    worst, summary = profile.stragglers[0], profile.straggler_summary
    words = f"{plural(summary.stragglers, 'straggler')} among {plural(summary.runs_scored, 'scored run')}: "
    if worst.is_slow_overall:
        words += (
            f"{code(worst.run_id)} took {units.multiple(worst.wall_to_peer_median)} the median of its peers, the"
            f" runs of its task with the same markers (a run is flagged far outside their spread, a robust z-score"
            f" over {units.decimal(summary.robust_z_threshold, 1)}, and above"
            f" {units.decimal(summary.wall_multiple_threshold, 1)}x)"
        )
    else:
        seconds, median = units.durations(worst.worst_interval_seconds, worst.worst_interval_task_median_seconds)
        words += (
            f"in {code(worst.run_id)}, {code(worst.worst_interval_label)} took {seconds} against {median} in its"
            f" task (a robust z-score of {units.decimal(worst.worst_interval_robust_z, 1)}, flagged above"
            f" {units.decimal(summary.robust_z_threshold, 1)})"
        )
    if worst.is_slow_overall and worst.downtime_seconds > 0:
        words += f", {units.duration(worst.downtime_seconds)} of it downtime between sessions"
    return words + "."


def answer(profile: CollectionProfile, findings: Findings, tables: dict) -> list[str]:
    """The bullets under "Where the time goes", in the page's order."""
    lines = []
    if tables["goodput"]:
        lines.append(goodput(tables["goodput"]))
    if rules.traces_only(profile):
        runs = profile.snapshot.trace_runs
        if runs == 1:
            lines.append("Its run is a profiler trace on its own (no log names it): no wall-time figures.")
        else:
            lines.append(f"Its {runs} runs are profiler traces on their own (no log names them): no wall-time figures.")
    elif profile.snapshot.runs_analyzed == 0 and not findings.live_sweep:
        lines.append("No run of this collection is complete, so there are no wall-time figures yet.")
    if findings.largest_share:
        lines.append(largest_share(profile, findings))
    if findings.inside_intervals:
        lines.append(inside_intervals(findings))
    if findings.gpu_utilization:
        lines.append(gpu_utilization(findings))
    if findings.inside_steps:
        lines.append(inside_steps(findings))
    if findings.span_use:
        lines.append(span_use(profile, findings))
    if findings.baseline_change:
        lines.append(baseline_change(profile, findings, tables["wall"]))
    if findings.live_sweep:
        lines.append(live_sweep(profile, findings))
    if findings.ranks:
        lines.append(ranks(findings))
    if findings.stragglers and findings.stragglers.key == "flagged":
        lines.append(stragglers(profile))
    return lines


def inside_intervals(findings: Findings) -> str:
    """What a part of the runs was spent on, and against the baseline what changed (rules.inside_intervals)."""
    figures = findings.inside_intervals.figures
    first, second = figures["first"], figures["second"]
    part = INSIDE_PART_WORDS[figures["part"]]
    words = f"**Inside the intervals**, {part} are {units.percent(first.share_of_part)} {escape_text(first.section)}"
    if second is not None:
        words += f" and {units.percent(second.share_of_part)} {escape_text(second.section)}"
    words += f" (over {plural(figures['runs'], 'analyzed run')} with a profile at more than one moment)"
    change = figures.get("change")
    if change is not None:
        way = "longer" if change > 0 else "shorter"
        held_by = figures["held_by"]
        # one unit for the change and its part: "1.80 min longer, of which ... 1.60 min"
        texts = units.duration_column([abs(change), abs(held_by.change_seconds) if held_by else None])
        words += f"; against the baseline they are {texts[0]} {way} per run"
        if held_by is not None:
            words += f", of which {escape_text(held_by.section)} {texts[1]}"
    return words + "."


def inside_steps(findings: Findings) -> str:
    """The answer's line on the profiled steps (rules.inside_steps)."""
    finding = findings.inside_steps
    steps, tasks = finding.figures["steps"], finding.figures["tasks"]
    threshold = units.setting_percent(finding.figures["build"].input_bound_share)
    profiled = f"{plural(steps.steps, 'profiled step')} of {plural(steps.runs, 'run')}"
    words = f"**Inside a step** ({profiled} with profiler traces): "
    if finding.key == "input_bound":
        waits = [f"{units.percent(task.data_loading_share)} of each step in {code(task.task)}" for task in tasks]
        waiting = "the GPU" if steps.has_gpu_events else "the steps"  # a CPU-only trace has no GPU to wait
        words += f"{waiting} waited for data {units.list_of(waits)}: input-bound"
        words += f" (data loading above {threshold} of the step)"
    else:
        top = tasks[0]
        words += (
            f"no task waits for data: data loading takes at most {units.percent(top.data_loading_share)} of a step"
            f" ({code(top.task)}), within the {threshold} input-bound share"
        )
    if steps.has_gpu_events:
        words += f"; the GPU was idle {units.percent(steps.idle_share)} of its time in the steps"
    else:
        words += "; the traces hold no GPU events, so there is no GPU breakdown"
    moved = finding.figures.get("moved")
    if moved is not None:
        here, there = units.durations(moved.seconds_per_step, moved.baseline_seconds_per_step)
        words += (
            f"; against the baseline, the part of the step that moved most is {code(moved.part)}:"
            f" {here} per step against {there}"
        )
    return words + "."


def step_task(finding) -> str:
    """One task's steps (rules.step_task): the verdict, the GPU time's split largest first and
    where its idle time went, the rank that held the steps."""
    task = finding.figures["task"]
    words = f"{code(task.task)} ({plural(task.steps, 'step')}, mean {units.duration(task.mean_step_seconds)}): "
    if finding.key == "input_bound":
        waiting = "the steps" if finding.figures["cpu_only"] else "the GPU"
        words += f"{waiting} waited for data {units.percent(task.data_loading_share)} of each step, input-bound"
    else:
        words += f"data loading took {units.percent(task.data_loading_share)} of each step"
    if finding.figures["cpu_only"]:
        words += "; its traces hold no GPU events (CPU only), so there is no GPU breakdown"
    else:
        parts = ", ".join(f"{part.part} {units.percent(part.share_of_gpu_span)}" for part in finding.figures["parts"])
        words += f". The GPU's time: {parts}"
        if task.host_wait_share is not None:
            words += (
                f"; its idle time went to host wait {units.percent(task.host_wait_share)}, kernel wait"
                f" {units.percent(task.kernel_wait_share)}, other {units.percent(task.other_idle_share)}"
            )
    held = finding.figures["held_by"]
    if held is not None:
        words += (
            f". Rank {held.straggling_rank} held {held.held_steps} of {plural(held.matched_steps, 'step')} matched"
            f" across up to {held.max_ranks} ranks (the last to launch its first collective); the other ranks"
            f" waited {units.duration(held.mean_waited_seconds)} for it per step"
        )
    return words + "."


def step_tasks(findings: Findings) -> list[str]:
    return [step_task(finding) for finding in findings.step_tasks]


def gpu_utilization(findings: Findings) -> str:
    """How busy the GPUs were and where the idle GPU-hours went (rules.gpu_utilization)."""
    collection, idlest = findings.gpu_utilization.figures["collection"], findings.gpu_utilization.figures["idlest_kind"]
    measured, held, idle = units.gpu_hour_texts(
        [collection.measured_gpu_hours, collection.gpu_hours, collection.idle_gpu_hours]
    )
    words = (
        f"**GPU utilization**: the GPUs were {units.utilization(collection.mean_gpu_utilization_pct)} busy over"
        f" {measured} measured GPU-hours (of {held} GPU-hours held by {plural(collection.runs, 'run')} with"
        f" samples): {idle} idle GPU-hours"
    )
    if idlest is not None and idlest.share_of_idle_gpu_hours is not None:
        words += (
            f", the most in {code(idlest.interval_kind)} intervals, {units.percent(idlest.share_of_idle_gpu_hours)}"
            f" of the idle GPU-hours ({units.utilization(idlest.mean_gpu_utilization_pct)} busy)"
        )
    return words + "."


def goodput_unmeasured(findings: Findings) -> list[str]:
    """One line per thing the logs could not measure for the goodput, with the time it could hide."""
    lines = []
    for finding in findings.goodput_unmeasured:
        runs, of = units.count(finding.figures["runs"]), plural(finding.figures["of"], "run")
        if finding.key == "start_up_unmeasured":
            lines.append(
                f"Start-up is not measured in {runs} of {of}: no `train_start` says where training began, so it is"
                f" counted as training time, in at most {units.duration(finding.figures['seconds'])} (each such"
                " session's run_start to its first marker, within the time no measured section took)."
            )
        elif finding.key == "final_tail_unmeasured":
            lines.append(
                f"The final tail is not measured in {runs} of {of}: without an `epoch_end` and a measured"
                " `run_end` (an importer's stand-in is none; a live run has none yet), a tail after training, if"
                " any, is counted as training time."
            )
        elif finding.key == "sections_unmeasured":
            lines.append(
                f"Evaluation, checkpoint saves and restores, and data loading are not measured in {runs} of {of}:"
                " no profiler section of theirs maps to training, so their"
                f" {units.duration(finding.figures['seconds'])} of productive time is an upper bound that may hold"
                " them."
            )
        elif finding.key == "restores_inferred":
            lines.append(
                f"The checkpoint a resume went back to is inferred in {runs} of {of}: no `train_start` named the"
                " step of a checkpoint before the restart (the step is read from `train_start` only, not from a"
                " run_start's `config`), so redone training there counts from the latest checkpoint before each"
                " restart, and is longer if a resume went back further."
            )
    return lines


def unmapped_sections(findings: Findings) -> str | None:
    """The sections that map to no goodput bucket (rules.unmapped_sections), and the var that maps one."""
    if not findings.unmapped_sections:
        return None
    finding = findings.unmapped_sections
    sections = finding.figures["sections"]
    names = ", ".join(code(section.section) for section in sections)
    one = len(sections) == 1
    seconds = f"{'its' if one else 'their'} {units.duration(sum(section.total_seconds for section in sections))}"
    if finding.key == "beside_training":
        words = (
            f"{names} {'maps' if one else 'map'} to no goodput bucket, so goodput counts {seconds} as unattributed,"
            " beside the time in no section (in a run without a training section, within its productive time)"
        )
    else:
        words = (
            f"{names} {'maps' if one else 'map'} to no goodput bucket, and no section here maps to training, so"
            f" goodput counts {seconds} within productive time, which is then an upper bound"
        )
    example = f"runlens build -- --vars '{{goodput_section_buckets: {{{sections[0].section}: <bucket>}}}}'"
    return (
        f"{words}: the var `goodput_section_buckets` maps a section to a bucket (`training`, `evaluation`,"
        f" `checkpoint_save`, `checkpoint_restore` or `data_loading`), as in {code(example)}."
    )


def longest_interval(profile: CollectionProfile, findings: Findings) -> str:
    top = profile.longest_intervals[0]
    label, mean = code(top.longest_interval_label), units.duration(top.mean_seconds)
    if top.runs_with_intervals == 1:
        return f"The longest interval of the one run with markers is {label}, {mean}."
    runs = f"{units.count(top.runs)} of {plural(top.runs_with_intervals, 'run')}"
    if findings.longest_interval.key == "usually_longest":
        return (
            f"The longest interval of a run is usually {label}: the longest in {runs}, {mean} on average over all"
            " of them."
        )
    tied = findings.longest_interval.figures["tied"]
    if len(tied) > 1:
        labels = units.list_of(code(interval.longest_interval_label) for interval in tied)
        means = units.durations(*(interval.mean_seconds for interval in tied))
        each = f"{means[0]} each" if len(set(means)) == 1 else units.list_of(means)
        return (
            f"No interval is the longest in most runs: {labels} are each the longest in {runs} ({each} on"
            " average over all of them)."
        )
    return (
        f"No interval is the longest in most runs: {label}, the one most often longest, is so in only {runs}"
        f" ({mean} on average over all of them)."
    )


def later_windows(profile: CollectionProfile, findings: Findings) -> str:
    windows = profile.later_windows
    low, high, summed = units.durations(windows.min_mean_seconds, windows.max_mean_seconds, windows.summed_mean_seconds)
    count = units.count(windows.later_window_count)
    if windows.later_window_count == 1:
        words = f"After the first interval, 1 more comes before the final epoch end in most runs, {summed} on average."
    elif low == high:
        words = (
            f"After the first interval, {count} more come before the final epoch end in most runs, each {low} on"
            f" average, {summed} together."
        )
    else:
        words = (
            f"After the first interval, {count} more come before the final epoch end in most runs; their means"
            f" range from {low} to {high}, {summed} together."
        )
    if findings.later_windows:
        words += (
            " Together they outweigh the first: the repeated stretches between markers, not one slow phase, hold"
            " most of the time before the final epoch end."
        )
    return words


def final_tail(profile: CollectionProfile, findings: Findings) -> str:
    snapshot, ends_there = profile.snapshot, findings.final_epoch_end_tail
    mean, longest = units.durations(snapshot.mean_tail_seconds, snapshot.max_tail_seconds)
    weight = "not negligible" if findings.tail_weight.key == "tail_not_negligible" else "negligible"
    words = (
        f"The final tail after the last epoch end: mean final tail {mean}, {longest} in the slowest run; mean tail"
        f" share {units.percent(snapshot.mean_tail_share)} (the mean of the analyzed runs' shares of their wall"
        f" time, as in Tasks): {weight}."
    )
    if ends_there:
        words += (
            f" {units.count(ends_there.figures['runs'])} of the {plural(profile.epochs.runs_with_epochs, 'run')} end"
            " at their last epoch end (a final tail of 0 s)."
        )
    return words


def between_markers(profile: CollectionProfile, findings: Findings) -> list[str]:
    """The bullets under "Time between markers", in the page's order."""
    lines = []
    top = profile.longest_intervals[0] if profile.longest_intervals else None
    if top and (findings.longest_interval.key == "usually_longest" or not findings.many_epochs):
        lines.append(longest_interval(profile, findings))
    if profile.later_windows and not findings.many_epochs:
        lines.append(later_windows(profile, findings))
    ends_there = findings.final_epoch_end_tail
    if ends_there and ends_there.key == "every_run_ends_at_final_epoch_end":
        lines.append(
            "Every run ends at its last epoch end: run_end comes at the final epoch_end, so there is no final tail."
        )
    elif profile.snapshot.mean_tail_seconds is not None:
        lines.append(final_tail(profile, findings))
    if findings.coarse_split and findings.coarse_split.key == "mostly_in_final_tail":
        lines.append(
            f"Most of the time (mean tail share {units.percent(profile.snapshot.mean_tail_share)}, the mean of the"
            " analyzed runs' shares of their wall time) passes after the final epoch end: finalization, not training,"
            " is where the time goes."
        )
    return lines


LIMIT_WORDS = {
    "coarse_attribution_only": (
        "Event logs support only coarse attribution: time is assigned to the intervals between markers, not to what"
        ' happened inside them; log the runs with runlens\' writer (README, "Log your runs") to get profiler'
        " sections."
    ),
    "profiler_wall_time_only": (
        "Wall times come from the in-process profiler, which does not see time spent outside the training process"
        " (start-up, queueing, restarts)."
    ),
    "mixed_sources": (
        "Runs of this collection were measured in two ways (event log and profiler); its figures mix the two."
    ),
    "no_epoch_end_split": (
        "No analyzed run has a final tail to split off: each lacks an epoch_end or a measured run_end (an importer's"
        " stand-in is none), or trained on past its last epoch_end (a checkpoint of a later step after it)."
    ),
}


def limit(profile: CollectionProfile, finding) -> str:
    """One limit of the page's figures (rules.limits), its nested list included."""
    if finding.key in LIMIT_WORDS:
        return LIMIT_WORDS[finding.key]
    if finding.key == "comparison_sources_differ":
        comparison = finding.figures["comparison"]
        return (
            f"The comparison with the baseline mixes measurement sources ({source(comparison.measurement_source)}"
            f" here, {source(comparison.baseline_measurement_source)} there): the profiler does not see start-up or"
            " restarts, so a gap is partly measurement."
        )
    if finding.key == "approximate_markers":
        items = "".join(
            f"\n  - {plural(item.markers, 'marker')} in {plural(item.runs, 'run')} ({escape_text(item.source_format)}):"
            f" {escape_text(item.approximation)}"
            for item in profile.approximations
        )
        return (
            "Some marker times are stand-ins, not the moments themselves, so the intervals next to them are"
            f" approximate:{items}"
        )
    if finding.key == "excluded_runs":
        excluded = profile.snapshot.runs_excluded
        verb = "is" if excluded == 1 else "are"
        return f"{plural(excluded, 'run')} {verb} left out of every figure above (see Data quality for why)."
    if finding.key == "rejected_lines":
        quality = profile.data_quality
        verb = "was" if quality.rejected == 1 else "were"
        unread = (
            f" and {plural(quality.unreadable_files, 'file')} could not be read in full"
            if quality.unreadable_files
            else ""
        )
        return (
            f"{plural(quality.rejected, 'log line')} of this collection's files {verb} rejected{unread}; events on"
            " them are missing from these figures (`fct_rejected_lines` lists each with its file, line and reason)."
        )
    return ""


def limits(profile: CollectionProfile, findings: Findings) -> list[str]:
    return [limit(profile, finding) for finding in findings.limits]


def not_shown_item(finding) -> str:
    figures = finding.figures
    if finding.key == "still_running":
        listed = "; the abandoned runs are listed above" if figures.get("abandoned") else ""
        return f"Still running (no run is going{listed})"
    if finding.key == "baseline_not_named":
        return (
            "Against the baseline (no baseline is named for this collection in its collections file,"
            " `runlens_collections.csv`)"
        )
    if finding.key == "baseline_without_runs":
        steps = "; its profiled steps compare under Inside a step" if figures.get("steps_compared") else ""
        return f"Against the baseline ({escape_text(figures['baseline'])} has no analyzed runs here{steps})"
    if finding.key == "no_profiler_sections":
        return "Time by profiler section (no run carries a profiler summary; runlens' writer adds one)"
    if finding.key == "no_utilization_samples":
        return (
            "GPU utilization (no run carries utilization samples: `sample` lines, input_contract.md; runlens'"
            " writer writes them with `log.sample()`, or `log.start_sampler()` where nvidia-ml-py is installed)"
        )
    if finding.key == "few_epochs":
        return "Epochs (a median run has fewer than 5 epoch ends)"
    if finding.key == "not_scored":
        fewest = units.count(figures["summary"].min_task_runs)
        return f"Stragglers (not scored: fewer than {fewest} analyzed runs per task)"
    if finding.key == "none_flagged":
        summary = figures["summary"]
        return (
            f"Stragglers (none among {plural(summary.runs_scored, 'scored run')}: none over"
            f" {units.decimal(summary.wall_multiple_threshold, 1)}x its peers' median and a robust z-score of"
            f" {units.decimal(summary.robust_z_threshold, 1)} among them, or with an interval's robust"
            f" z-score over {units.decimal(summary.robust_z_threshold, 1)} and, at the run's own pace, an excess of at"
            " least"
            f" {units.setting_percent(summary.min_excess_share)} of its wall time and"
            f" {units.setting_duration(summary.min_excess_seconds)})"
        )
    if finding.key == "one_task":
        return "the slowest and fastest tasks (one task)"
    if finding.key == "no_analyzed_runs":
        return "wall-time figures (no analyzed run)"
    return ""


def not_shown(findings: Findings) -> str | None:
    """The sections a page leaves out, and why, in one sentence."""
    if not findings.not_shown:
        return None
    return "Not shown: " + "; ".join(not_shown_item(finding) for finding in findings.not_shown) + "."


FIRST_EPOCH_WORDS = {
    "first_epoch_slower": (
        "The first epoch is slower than the typical later one; what it holds beyond them (start-up, compilation,"
        " cold caches) the event log cannot tell."
    ),
    "first_epoch_faster": (
        "The first epoch is faster than the typical later one: in frameworks that validate after an epoch end,"
        " every later epoch carries the previous epoch's validation, which the first does not."
    ),
}


def first_epoch(findings: Findings) -> str | None:
    if not findings.first_epoch:
        return None
    return FIRST_EPOCH_WORDS.get(findings.first_epoch.key, "The first epoch takes about as long as the later ones.")


def eta_range(findings: Findings) -> str | None:
    """The one line under "Still running" that says how often ranges like these held the truth."""
    found = findings.eta_range
    if found is None:
        return None
    figures = found.figures
    words = (
        f"On this sweep's {plural(figures['runs'], 'finished run')}, replayed as if live at each marker, ranges"
        f" like these held the true finish {units.percent(figures['after'])} of the time"
    )
    if found.key == "calibrated":
        return (
            words + f" (the peers' uncorrected 25th to 75th percentile: {units.percent(figures['before'])}; each"
            " range is scaled on its task's replays, else its collection's, `def_eta_calibration`)."
        )
    return words + ": too few replays to calibrate them, so each is the peers' uncorrected 25th to 75th percentile."


def live_status(profile: CollectionProfile, findings: Findings) -> str:
    """The opening of "Still running": where the sweep stands at the as-of time."""
    live = profile.live
    words = (
        f"As of {time(live.as_of_at)}: {units.count(live.runs_completed)} completed, {units.count(live.runs_failed)}"
        f" failed, {units.count(live.runs_running)} running, {units.count(live.runs_stalled)} stalled"
    )
    if live.runs_abandoned:
        words += f", {units.count(live.runs_abandoned)} abandoned"
    words += "."
    if findings.live_sweep.key == "last_finish_estimated" and live.spent_share is not None:
        words += f" {units.percent(live.spent_share)} of the sweep's expected run time is spent."
    return words


def task_ends(profile: CollectionProfile, findings: Findings, tables: dict) -> str | None:
    """The slowest and fastest tasks the page names, their ties, and how much the task matters."""
    named, wall = findings.named_tasks, tables["wall"]
    if not named:
        return None
    slowest, fastest = profile.tasks[:named], list(reversed(profile.tasks))[:named]

    def listed(tasks) -> str:
        return ", ".join(f"{escape_text(task.task)} {wall(task.mean_wall_seconds)}" for task in tasks)

    words = f"Slowest: {listed(slowest)}. Fastest: {listed(fastest)}."
    for one, other in tables["tied_ends"]:
        words += f" {escape_text(one)} and {escape_text(other)} are equal at this precision."
    spread = findings.task_spread
    if spread and spread.key == "task_drives_variation":
        words += (
            " Task drives much of the variation: the slowest task's mean is"
            f" {units.decimal(spread.figures['ratio'], 1)} times the fastest's."
        )
    elif spread:
        words += (
            " Tasks differ little: the slowest task's mean is only"
            f" {units.decimal(spread.figures['ratio'], 2)} times the fastest's."
        )
    return words


SAVING_UNMEASURED = (
    "Checkpoint saves are logged as moments, so the time spent saving sits inside the intervals around them; no"
    " profiler section measured it here."
)
WHOLE_EPOCHS = (
    "Each epoch end here is logged at the same moment as the checkpoint before it, so `epoch_end -> checkpoint`"
    " runs from one epoch end to the next save: without saves inside an epoch, that is the whole next epoch (its"
    " training, validation and saving together)."
)
# what can split such an epoch: nothing in these logs, or the profiles written at more than one moment
UNSPLIT_EPOCHS = (
    " These logs cannot split an epoch into training and validation or saving; a marker where validation starts"
    " would, or a profile written at every epoch end."
)
PROFILE_SPLIT_EPOCHS = (
    " The markers cannot split an epoch into training and validation or saving; the profiles do (inside the"
    " intervals, under Time by profiler section)."
)


def coinciding_markers(findings: Findings) -> list[str]:
    """The paragraphs under the kinds of interval when some markers are logged at the same moment."""
    finding = findings.coinciding_markers
    if not finding:
        return []
    kinds = ", ".join(code(kind) for kind in finding.figures["kinds"])
    zero = (
        f"Kinds whose every interval lasts 0 s, their two markers being logged at the same moment: {kinds}. The time"
        " around such markers sits in the neighbouring kinds."
    )
    if not finding.figures["whole_epochs"]:
        return [zero]
    split = PROFILE_SPLIT_EPOCHS if finding.figures["split_by_profiles"] else UNSPLIT_EPOCHS
    return [WHOLE_EPOCHS + split, zero]


def gpu_hours(profile: CollectionProfile, findings: Findings) -> str:
    span = profile.span
    if findings.gpu_hours.key == "gpu_hours_known":
        return f"{units.gpu_hour_texts([span.gpu_hours])[0]} (each run's GPUs times its active hours, def_gpu_hours)"
    return (
        f"unknown ({units.count(span.runs_with_gpus)} of {plural(span.runs, 'run')} name their GPUs in"
        " `resources.gpus`)"
    )


def no_runs(finding, database: str) -> str:
    """The index's answer when the marts hold no run (rules.no_runs)."""
    words = f"**No runs were found.** The marts in {code(database)} hold none:"
    if finding.key == "no_log_files":
        return words + " the build that made them found no logs (`*.jsonl`, `*.jsonl.gz`) in the raw folder it read."
    figures = finding.figures
    return words + (
        f" the build that made them read {plural(figures['files'], 'log file')}"
        f" ({plural(figures['accepted'], 'line')} accepted, {plural(figures['other_events'], 'other event')},"
        f" {units.count(figures['rejected'])} rejected) and found no run in what it read; `fct_rejected_lines` says"
        " why each rejected line was rejected."
    )
