"""The report's tables, shaped from the marts' rows: one unit per column, chosen from the column's
own figures (units.py), names escaped once where they enter Markdown (markdown.py). Presentation
only: which rows a table holds and in what order is data.py's; no figure is
computed here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from runlens.report import rules, units
from runlens.report.data import CollectionProfile, IndexData
from runlens.report.markdown import escape_code, escape_text
from runlens.report.rules import NO_SECTION
from runlens.report.words import (
    ABANDON_BASIS_WORDS,
    GOODPUT_COLUMNS,
    GOODPUT_WORDS,
    INSIDE_PART_WORDS,
    INTERVAL_SECTION_WORDS,
    KIND_WORDS,
    PART_WORDS,
    RANK_BASIS_WORDS,
    SECTION_WORDS,
    SOURCE_WORDS,
    peer_words,
    time,
)


@dataclass(frozen=True)
class Table:
    headers: list[str]
    numeric: list[bool]  # right-aligned columns
    rows: list[list[str]]

    def markdown(self) -> str:
        lines = ["| " + " | ".join(self.headers) + " |"]
        lines.append("|" + "|".join("---:" if right else "---" for right in self.numeric) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.markdown()


def table(columns: Sequence[tuple[str, bool, list[str]]]) -> Table:
    """A table from its columns: (header, numeric, cells)."""
    headers = [header for header, _, _ in columns]
    numeric = [right for _, right, _ in columns]
    height = len(columns[0][2]) if columns else 0
    return Table(headers, numeric, [[cells[row] for _, _, cells in columns] for row in range(height)])


def texts(values, escape: Callable[[str], str] = escape_text) -> list[str]:
    return [escape(value) if value is not None else "n/a" for value in values]


def codes(values) -> list[str]:
    return texts(values, escape_code)


def counts(values) -> list[str]:
    return [units.count(value) for value in values]


def yes_no(values) -> list[str]:
    return ["yes" if value else "no" for value in values]


def page_wall_times(profile: CollectionProfile) -> units.WallTimes:
    """One format for every whole-run wall time the page shows (units.WallTimes), the one the index
    and every other page of the report give them in (report_wall_times): the report's figures
    choose its unit, with the page's own (which lie between them but for a run with ranks that was
    not analyzed)."""
    snapshot, comparison, span = profile.snapshot, profile.comparison, profile.span
    seconds = list(profile.report_wall_seconds)
    seconds += [snapshot.mean_wall_seconds, snapshot.median_wall_seconds, snapshot.p90_wall_seconds]
    for task in profile.tasks:
        seconds += [task.mean_wall_seconds, task.median_wall_seconds, task.p90_wall_seconds, task.p95_wall_seconds]
    if comparison is not None:
        seconds += [comparison.mean_wall_seconds, comparison.baseline_mean_wall_seconds]
        seconds += [comparison.matched_mean_wall_seconds, comparison.matched_baseline_mean_wall_seconds]
    for row in profile.task_comparisons:
        seconds += [row.mean_wall_seconds, row.baseline_mean_wall_seconds]
    seconds += [run.wall_seconds for run in profile.shown_stragglers]
    seconds += [run.wall_seconds for run in profile.shown_distributed_runs]
    if span is not None:
        seconds.append(span.longest_run_seconds)
    return units.wall_times(seconds)


def tied_ends(profile: CollectionProfile, named: int) -> list[tuple[str, str]]:
    """Every two neighbours among the slowest and among the fastest tasks a page names (`named` of
    each end) whose means print the same (the page's wall-time format): the page calls them equal,
    never one of them slower than the other."""
    wall, tasks = page_wall_times(profile), profile.tasks
    ends = [tasks[:named], list(reversed(tasks))[:named]] if named >= 2 else []
    return [
        (a.task, b.task)
        for end in ends
        for a, b in zip(end, end[1:], strict=False)
        if wall(a.mean_wall_seconds) == wall(b.mean_wall_seconds)
    ]


def tasks_table(profile: CollectionProfile) -> Table:
    tasks = profile.shown_tasks
    wall = page_wall_times(profile)
    walls = [
        wall.column(task.mean_wall_seconds for task in tasks),
        wall.column(task.median_wall_seconds for task in tasks),
        wall.column(task.p90_wall_seconds for task in tasks),
        wall.column(task.p95_wall_seconds for task in tasks),
    ]
    return table(
        [
            ("task", False, texts(task.task for task in tasks)),
            ("runs analyzed", True, counts(task.runs_analyzed for task in tasks)),
            ("runs excluded", True, counts(task.runs_excluded for task in tasks)),
            ("mean wall", True, walls[0]),
            ("median", True, walls[1]),
            ("p90", True, walls[2]),
            ("p95", True, walls[3]),
            ("mean final tail", True, units.duration_column([task.mean_tail_seconds for task in tasks])),
            ("mean tail share", True, units.percent_column([task.mean_tail_share for task in tasks])),
        ]
    )


def live_runs_table(profile: CollectionProfile) -> Table:
    runs = profile.shown_live_runs

    def finish(run) -> str:
        return "none: stalled" if run.live_status == "stalled" else time(run.estimated_finish_at)

    # the header says "calibrated" only where a range was (def_eta_calibration: too few replays leave
    # the peers' percentiles as they are)
    calibrated = any(run.range_calibration != "none" for run in runs)
    range_header = "range (25th to 75th percentile" + (", calibrated)" if calibrated else ")")

    def finish_range(run) -> str:
        if run.live_status == "stalled" or run.estimated_finish_calibrated_low_at is None:
            return "n/a"
        return f"{time(run.estimated_finish_calibrated_low_at)} to {time(run.estimated_finish_calibrated_high_at)}"

    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("task", False, texts(run.task for run in runs)),
            ("state", False, ["**stalled**" if run.live_status == "stalled" else "running" for run in runs]),
            ("last marker", False, codes(run.last_marker_label for run in runs)),
            ("elapsed", True, units.duration_column([run.elapsed_seconds for run in runs])),
            ("silent", True, units.duration_column([run.silent_seconds for run in runs])),
            ("likely finish", False, [finish(run) for run in runs]),
            (range_header, False, [finish_range(run) for run in runs]),
            ("estimated from", False, [peer_words(run.peer_set, run.peer_runs) for run in runs]),
        ]
    )


def abandoned_table(profile: CollectionProfile) -> Table:
    runs = profile.abandoned_runs
    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("task", False, texts(run.task for run in runs)),
            ("last marker", False, codes(run.last_marker_label for run in runs)),
            ("last heard from", False, [time(run.last_event_at) for run in runs]),
            ("silent", True, units.duration_column([run.silent_seconds for run in runs])),
            ("abandoned after", True, units.duration_column([run.abandon_threshold_seconds for run in runs])),
            ("judged against", False, [ABANDON_BASIS_WORDS[run.abandon_threshold_basis] for run in runs]),
        ]
    )


def comparison_table(profile: CollectionProfile) -> Table:
    comparison = profile.comparison
    rows = [
        ("runs analyzed", units.count(comparison.runs_analyzed), units.count(comparison.baseline_runs_analyzed)),
    ]
    wall = page_wall_times(profile)
    means = wall.column([comparison.mean_wall_seconds, comparison.baseline_mean_wall_seconds])
    rows.append(("mean wall time, all tasks", *means))
    if comparison.has_different_task_mix:
        matched = wall.column([comparison.matched_mean_wall_seconds, comparison.matched_baseline_mean_wall_seconds])
        both = (
            "the task both ran"
            if comparison.matched_tasks == 1
            else f"the {units.count(comparison.matched_tasks)} tasks both ran"
        )
        rows.append((f"mean wall time on {both}, at this mix", *matched))
    rows.append(
        (
            "measured by",
            SOURCE_WORDS.get(comparison.measurement_source, "n/a"),
            SOURCE_WORDS.get(comparison.baseline_measurement_source, "n/a"),
        )
    )
    return table(
        [
            ("", False, [row[0] for row in rows]),
            ("this collection", True, [row[1] for row in rows]),
            (f"baseline {escape_text(comparison.baseline_title)}", True, [row[2] for row in rows]),
        ]
    )


def against_baseline_columns(rows, wall: units.WallTimes) -> list[tuple[str, bool, list[str]]]:
    """The columns a task against its baseline shows (cmp_task_runtime rows): runs on both sides,
    the two means in the report's wall-time format, the speedup with its word."""
    means = wall.column(row.mean_wall_seconds for row in rows)
    baseline_means = wall.column(row.baseline_mean_wall_seconds for row in rows)
    return [
        ("task", False, texts(row.task for row in rows)),
        ("runs", True, counts(row.runs for row in rows)),
        ("baseline runs", True, counts(row.baseline_runs for row in rows)),
        ("mean wall", True, means),
        ("baseline mean wall", True, baseline_means),
        ("vs baseline", True, [units.speedup(row.speedup) for row in rows]),
    ]


def task_comparison_table(profile: CollectionProfile) -> Table:
    tasks = profile.shown_task_comparisons
    columns = against_baseline_columns(tasks, page_wall_times(profile))
    return table([*columns, ("regressed", False, yes_no(task.is_regression for task in tasks))])


def parts_table(profile: CollectionProfile) -> Table:
    # a part that is 0 on both sides (nothing outside the markers) says nothing: it is left out
    parts = [part for part in profile.difference_parts if part.mean_seconds or part.baseline_mean_seconds]
    means, baseline_means, deltas = units.duration_columns(
        [part.mean_seconds for part in parts],
        [part.baseline_mean_seconds for part in parts],
        [part.delta_seconds for part in parts],
        signed=(False, False, True),
    )
    return table(
        [
            ("part of each run", False, [PART_WORDS.get(part.part, escape_text(part.part)) for part in parts]),
            ("this collection", True, means),
            ("baseline", True, baseline_means),
            ("difference", True, deltas),
            ("vs baseline", True, [units.speedup(part.speedup) for part in parts]),
            ("share of the difference", True, units.percent_column([part.share_of_difference for part in parts])),
        ]
    )


def positions_table(profile: CollectionProfile) -> Table:
    positions = profile.shown_positions
    means, baseline_means = units.duration_columns(
        [position.mean_seconds for position in positions], [position.baseline_mean_seconds for position in positions]
    )

    def label(position) -> str:
        text = escape_code(position.label)
        if not position.is_on_both_sides:
            text += " (one side only)"
        elif position.is_held_by_few_runs:
            text += " (few runs)"
        return text

    return table(
        [
            ("#", True, counts(position.position_order for position in positions)),
            ("interval", False, [label(position) for position in positions]),
            ("runs", True, counts(position.runs for position in positions)),
            ("baseline runs", True, counts(position.baseline_runs for position in positions)),
            ("mean", True, means),
            ("baseline mean", True, baseline_means),
            ("vs baseline", True, [units.speedup(position.speedup) for position in positions]),
        ]
    )


def config_table(profile: CollectionProfile) -> Table:
    differences = profile.config_differences
    return table(
        [
            ("config key", False, codes(difference.config_key for difference in differences)),
            ("this collection", False, codes(difference.values for difference in differences)),
            ("baseline", False, codes(difference.baseline_values for difference in differences)),
        ]
    )


def sections_table(profile: CollectionProfile) -> Table:
    sections = profile.profile_sections
    return table(
        [
            ("section", False, texts(SECTION_WORDS.get(section.section, section.section) for section in sections)),
            (
                "share of profiled wall time",
                True,
                units.percent_column([section.share_of_wall for section in sections]),
            ),
            ("total", True, units.duration_column([section.total_seconds for section in sections])),
            ("mean per run", True, units.duration_column([section.mean_seconds_per_run for section in sections])),
        ]
    )


def interval_sections_table(profile: CollectionProfile) -> Table | None:
    """Each part of the runs (in run order) with its mean per run and each section's share of it:
    the sections the parts spent time in, largest overall first, then the time in no section and
    the time no profile covered (agg_collection_interval_sections)."""
    rows = profile.interval_sections
    if not rows:
        return None
    present = {row.wall_time_part for row in rows}
    parts = [part for part in INSIDE_PART_WORDS if part in present]  # in run order
    totals: dict[str, float] = {}
    for row in rows:
        totals[row.section] = totals.get(row.section, 0.0) + row.seconds
    named = sorted((name for name in totals if name not in NO_SECTION and totals[name] > 0), key=lambda n: -totals[n])
    sections = named + [name for name in NO_SECTION if totals.get(name, 0) > 0]
    share = {(row.wall_time_part, row.section): row.share_of_part for row in rows}
    means = {row.wall_time_part: row.part_seconds / row.runs for row in rows}
    columns = [
        ("part of the run", False, [INSIDE_PART_WORDS[part] for part in parts]),
        ("mean per run", True, units.duration_column([means[part] for part in parts])),
    ]
    columns += [
        (
            escape_text(INTERVAL_SECTION_WORDS.get(section, section)),
            True,
            units.percent_column([share.get((part, section), 0.0) for part in parts]),
        )
        for section in sections
    ]
    return table(columns)


def kinds_table(profile: CollectionProfile) -> Table:
    kinds = profile.interval_kinds
    return table(
        [
            ("kind of interval", False, codes(kind.interval_kind for kind in kinds)),
            ("usually holds", False, [KIND_WORDS.get(kind.interval_kind, "n/a") for kind in kinds]),
            ("share of the summed wall time", True, units.percent_column([kind.share_of_wall for kind in kinds])),
            ("total", True, units.duration_column([kind.total_seconds for kind in kinds])),
            ("intervals", True, counts(kind.intervals for kind in kinds)),
        ]
    )


def task_epochs_table(profile: CollectionProfile) -> Table:
    tasks = profile.shown_task_epochs
    mean, p50, p90, first_epoch, later = units.duration_columns(
        [task.mean_epoch_seconds for task in tasks],
        [task.p50_epoch_seconds for task in tasks],
        [task.p90_epoch_seconds for task in tasks],
        [task.mean_first_epoch_seconds for task in tasks],
        [task.mean_later_epoch_median_seconds for task in tasks],
    )
    return table(
        [
            ("task", False, texts(task.task for task in tasks)),
            ("runs", True, counts(task.runs_with_epochs for task in tasks)),
            ("epochs per run (median)", True, [units.decimal(task.median_epochs_per_run, 1) for task in tasks]),
            ("mean epoch", True, mean),
            ("p50", True, p50),
            ("p90", True, p90),
            ("first epoch", True, first_epoch),
            ("later epochs (median)", True, later),
            (
                "first-epoch excess",
                True,
                units.duration_column([task.mean_first_epoch_excess_seconds for task in tasks], signed=True),
            ),
        ]
    )


def stragglers_table(profile: CollectionProfile) -> Table:
    runs = profile.shown_stragglers
    worst, task_median = units.duration_columns(
        [run.worst_interval_seconds for run in runs], [run.worst_interval_task_median_seconds for run in runs]
    )

    def interval(run) -> str:
        if run.worst_interval_label is None:
            return "n/a"
        return escape_code(run.worst_interval_label)

    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("task", False, texts(run.task for run in runs)),
            ("wall", True, page_wall_times(profile).column(run.wall_seconds for run in runs)),
            ("x its peers' median", True, [units.multiple(run.wall_to_peer_median) for run in runs]),
            ("robust z-score among them", True, [units.decimal(run.wall_robust_z, 1) for run in runs]),
            ("most unusual interval", False, [interval(run) for run in runs]),
            ("its duration", True, worst),
            ("task median there", True, task_median),
            ("robust z-score", True, [units.decimal(run.worst_interval_robust_z, 1) for run in runs]),
        ]
    )


def distributed_runs_table(profile: CollectionProfile) -> Table:
    runs = profile.shown_distributed_runs
    # the time lost is read against the wall time through its share (a column of its own): each
    # column its own unit, so that seconds lost beside minutes of wall time keep their digits
    walls = page_wall_times(profile).column(run.wall_seconds for run in runs)
    lost = units.duration_column([run.lost_to_slowest_seconds for run in runs])

    def straggling(run) -> str:
        if run.straggling_rank is None:
            return "none"
        points = "markers" if run.lost_basis == "arrival" else "profiles"
        what = "last" if run.lost_basis == "arrival" else "busiest"
        return f"rank {run.straggling_rank} ({what} at {run.straggling_rank_times} of {run.straggler_points} {points})"

    def stopped(run) -> str:
        if not run.stopped_ranks:
            return "none"
        if run.first_stopped_rank_status is not None:  # its last marker is its run_end: it failed
            first = f"rank {run.first_stopped_rank}: {escape_code(run.first_stopped_rank_status, table=True)}"
        else:
            first = f"rank {run.first_stopped_rank} after {escape_code(run.first_stopped_rank_last_marker, table=True)}"
        return first if run.stopped_ranks == 1 else f"{run.stopped_ranks}, first {first}"

    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("task", False, texts(run.task for run in runs)),
            ("ranks", True, counts(run.world_size for run in runs)),
            ("wall", True, walls),
            ("lost to the slowest rank", True, lost),
            ("share of wall", True, units.percent_column([run.lost_share for run in runs])),
            ("measured by", False, [RANK_BASIS_WORDS[run.lost_basis] for run in runs]),
            ("straggling rank", False, [straggling(run) for run in runs]),
            ("stopped early", False, [stopped(run) for run in runs]),
        ]
    )


def gpu_table(profile: CollectionProfile) -> Table:
    tasks = profile.task_gpu_hours
    return table(
        [
            ("task", False, texts(task.task for task in tasks)),
            ("runs", True, counts(task.runs for task in tasks)),
            ("runs naming their GPUs", True, counts(task.runs_with_gpus for task in tasks)),
            (
                "active GPU-hours",
                True,
                [
                    "unknown" if task.gpu_hours is None else text
                    for task, text in zip(tasks, units.gpu_hour_texts([task.gpu_hours for task in tasks]), strict=True)
                ],
            ),
        ]
    )


def busy(percentage: float | None) -> str:
    """A mean GPU utilization, or `not measured` where the mart has none (def_utilization)."""
    return "not measured" if percentage is None else units.utilization(percentage)


def utilization_columns(rows) -> list[tuple[str, bool, list[str]]]:
    """The figures of a utilization rollup (def_utilization_rollups), one column each."""
    held = units.gpu_hour_texts([row.gpu_hours for row in rows])
    measured = units.gpu_hour_texts([row.measured_gpu_hours for row in rows])
    idle = units.gpu_hour_texts([row.idle_gpu_hours for row in rows])
    return [
        ("runs", True, counts(row.runs for row in rows)),
        ("GPU-hours held", True, held),
        ("measured GPU-hours", True, measured),
        ("GPU utilization", True, [busy(row.mean_gpu_utilization_pct) for row in rows]),
        ("idle GPU-hours", True, idle),
    ]


def utilization_kinds_table(profile: CollectionProfile) -> Table:
    kinds = profile.utilization_kinds
    return table(
        [
            ("kind of interval", False, codes(kind.interval_kind for kind in kinds)),
            *utilization_columns(kinds),
            (
                "share of the idle GPU-hours",
                True,
                units.percent_column([kind.share_of_idle_gpu_hours for kind in kinds]),
            ),
        ]
    )


def utilization_parts_table(profile: CollectionProfile) -> Table:
    parts = profile.utilization_parts
    return table(
        [
            ("part of the sessions", False, codes(part.part for part in parts)),
            *utilization_columns(parts),
            (
                "share of the idle GPU-hours",
                True,
                units.percent_column([part.share_of_idle_gpu_hours for part in parts]),
            ),
        ]
    )


def utilization_comparison_table(profile: CollectionProfile) -> Table:
    rows = profile.utilization_comparison
    idle = units.gpu_hour_texts(
        [row.idle_gpu_hours_per_run for row in rows] + [row.baseline_idle_gpu_hours_per_run for row in rows]
    )

    return table(
        [
            ("part", False, codes(row.part for row in rows)),
            ("GPU utilization here", True, [busy(row.mean_gpu_utilization_pct) for row in rows]),
            ("in the baseline", True, [busy(row.baseline_mean_gpu_utilization_pct) for row in rows]),
            (
                "change",
                True,
                [
                    "n/a"
                    if row.utilization_change_points is None
                    else units.points(row.utilization_change_points / 100)
                    for row in rows
                ],
            ),
            ("idle GPU-hours per run here", True, idle[: len(rows)]),
            ("idle GPU-hours per run in the baseline", True, idle[len(rows) :]),
        ]
    )


def utilization_tasks_table(profile: CollectionProfile) -> Table:
    tasks = profile.utilization_tasks
    return table([("task", False, texts(task.task for task in tasks)), *utilization_columns(tasks)])


def task_utilization_table(profile: CollectionProfile, task: str) -> Table:
    """One task's GPU-hours split twice, by kind of interval and by part of the sessions, each split
    the most idle GPU-hours first: its utilization, GPU-hours, idle GPU-hours and share of the
    task's idle GPU-hours (agg_task_interval_kind_utilization, agg_task_goodput_part_utilization)."""
    kinds, parts = profile.task_utilization(task)
    rows = [*kinds, *parts]
    return table(
        [
            ("split by", False, ["kind of interval"] * len(kinds) + ["part of the sessions"] * len(parts)),
            ("kind or part", False, codes([*(kind.interval_kind for kind in kinds), *(part.part for part in parts)])),
            ("GPU utilization", True, [busy(row.mean_gpu_utilization_pct) for row in rows]),
            ("the task's GPU-hours held", True, units.gpu_hour_texts([row.gpu_hours for row in rows])),
            ("the task's idle GPU-hours", True, units.gpu_hour_texts([row.idle_gpu_hours for row in rows])),
            (
                "share of the task's idle GPU-hours",
                True,
                units.percent_column([row.share_of_idle_gpu_hours for row in rows]),
            ),
        ]
    )


def task_utilization_tables(profile: CollectionProfile) -> dict[str, Table]:
    """The table of each task the GPU utilization section gives a subsection of, by task."""
    return {task.task: task_utilization_table(profile, task.task) for task in profile.shown_utilization_tasks}


def goodput_answer(profile: CollectionProfile) -> dict | None:
    """The goodput sentence's figures as text (rules.goodput): GPU-hours, or run time in one unit."""
    finding = rules.goodput(profile)
    if finding is None:
        return None
    figures = finding.figures
    costs = figures["costs"]
    amounts = [figures["total"], *(cost["amount"] for cost in costs), figures["down"], figures["redone"]]
    if finding.key == "gpu_hours":
        texts = units.gpu_hour_texts(amounts)
    else:  # each in the unit of its size: a sweep's hours beside a restart's minutes
        texts = [units.duration(amount) for amount in amounts]
    return {
        "in_gpu_hours": finding.key == "gpu_hours",
        "share": units.percent(figures["share"]),
        "is_upper_bound": figures["is_upper_bound"],
        "total": texts[0],
        "costs": [
            {"bucket": cost["bucket"], "words": GOODPUT_WORDS[cost["bucket"]], "amount": text}
            for cost, text in zip(costs, texts[1 : 1 + len(costs)], strict=True)
        ],
        # what the disruptions cost, the parts that took time
        "disruption_parts": [
            f"{text} {part}"
            for text, part, amount in zip(texts[-2:], ("down", "redone"), amounts[-2:], strict=True)
            if amount > 0
        ],
        "more_costs": figures["more_costs"],
    }


def goodput_tasks_table(profile: CollectionProfile) -> Table:
    """Each task's run time and its buckets' shares of it: the buckets with time in the collection."""
    shown = [bucket.bucket for bucket in profile.goodput if bucket.seconds > 0]
    tasks: dict[str, dict[str, float | None]] = {}
    walls: dict[str, float] = {}
    for row in profile.task_goodput:
        tasks.setdefault(row.task, {})[row.bucket] = row.share_of_wall
        walls[row.task] = row.wall_seconds
    names = list(tasks)
    columns = [
        ("task", False, texts(names)),
        ("run time", True, units.duration_column([walls[name] for name in names])),
    ]
    columns += [
        (GOODPUT_COLUMNS[bucket], True, units.percent_column([tasks[name].get(bucket) for name in names]))
        for bucket in shown
    ]
    return table(columns)


NOT_MEASURED = "not measured"


def goodput_comparison_table(profile: CollectionProfile) -> Table:
    """Each bucket on both sides; a side that could not measure a bucket says so (its 0% or its
    upper bound is no figure to compare), and the bucket has no change."""
    rows = profile.goodput_comparison
    here, there = units.duration_columns(
        [row.seconds_per_run for row in rows], [row.baseline_seconds_per_run for row in rows]
    )

    def measured(texts: list[str], flags: list[bool]) -> list[str]:
        return [text if flag else NOT_MEASURED for text, flag in zip(texts, flags, strict=True)]

    own, baseline = [row.is_measured for row in rows], [row.is_baseline_measured for row in rows]
    both = [a and b for a, b in zip(own, baseline, strict=True)]
    return table(
        [
            ("bucket", False, [GOODPUT_COLUMNS[row.bucket] for row in rows]),
            ("share here", True, measured(units.percent_column([row.share_of_wall for row in rows]), own)),
            (
                "share in the baseline",
                True,
                measured(units.percent_column([row.baseline_share_of_wall for row in rows]), baseline),
            ),
            ("change", True, measured(units.points_column([row.share_change for row in rows]), both)),
            ("per run here", True, measured(here, own)),
            ("per run in the baseline", True, measured(there, baseline)),
        ]
    )


def steps_table(profile: CollectionProfile) -> Table:
    """Each task's profiled steps (agg_task_steps): the mean step, the share in data loading, the
    GPU's idle, computation, communication and memory shares and where its idle time went; a
    CPU-only task's GPU cells say so (never 0% idle)."""
    tasks = profile.step_tasks

    def gpu(shares) -> list[str]:
        cells = units.percent_column(list(shares))
        return [cell if task.has_gpu_events else "no GPU" for cell, task in zip(cells, tasks, strict=True)]

    return table(
        [
            ("task", False, codes(task.task for task in tasks)),
            ("steps", True, counts(task.steps for task in tasks)),
            ("mean step", True, units.duration_column([task.mean_step_seconds for task in tasks])),
            ("step data loading", True, units.percent_column([task.data_loading_share for task in tasks])),
            ("input-bound", False, yes_no(task.is_input_bound for task in tasks)),
            ("GPU idle", True, gpu(task.idle_share for task in tasks)),
            ("computation", True, gpu(task.compute_share for task in tasks)),
            ("communication", True, gpu(task.communication_share for task in tasks)),
            ("memory", True, gpu(task.memory_share for task in tasks)),
            ("host wait", True, gpu(task.host_wait_share for task in tasks)),
            ("kernel wait", True, gpu(task.kernel_wait_share for task in tasks)),
        ]
    )


def step_comparison_table(profile: CollectionProfile) -> Table:
    """The collection's profiled steps against its baseline's, part by part, per step
    (cmp_collection_step_parts, scope all_tasks): the part that moved most first."""
    rows = profile.step_comparison
    here, there, change = units.duration_columns(
        [row.seconds_per_step for row in rows],
        [row.baseline_seconds_per_step for row in rows],
        [row.change_seconds_per_step for row in rows],
        signed=[False, False, True],
    )
    return table(
        [
            ("part", False, codes(row.part for row in rows)),
            ("per step here", True, here),
            ("in the baseline", True, there),
            ("change", True, change),
            ("share here", True, units.percent_column([row.share for row in rows])),
            ("in the baseline", True, units.percent_column([row.baseline_share for row in rows])),
            ("of the step's change", True, units.percent_column([row.share_of_step_change for row in rows])),
        ]
    )


def profile_tables(profile: CollectionProfile) -> dict[str, object]:
    """Every table a profile may show, by name (the template picks the ones it lays out)."""
    tables = {"tasks": tasks_table(profile), "kinds": kinds_table(profile), "sections": sections_table(profile)}
    tables.update(interval_sections=interval_sections_table(profile))
    tables.update(wall=page_wall_times(profile), tied_ends=tied_ends(profile, rules.named_tasks(profile)))
    tables.update(live_runs=live_runs_table(profile), abandoned=abandoned_table(profile))
    if profile.comparison is not None:
        tables.update(comparison=comparison_table(profile))
    tables.update(
        task_comparison=task_comparison_table(profile),
        parts=parts_table(profile),
        positions=positions_table(profile),
        config=config_table(profile),
        task_epochs=task_epochs_table(profile),
        stragglers=stragglers_table(profile),
        distributed_runs=distributed_runs_table(profile),
        gpus=gpu_table(profile),
        goodput=goodput_answer(profile),
        goodput_tasks=goodput_tasks_table(profile),
        goodput_comparison=goodput_comparison_table(profile),
        utilization_kinds=utilization_kinds_table(profile),
        utilization_tasks=utilization_tasks_table(profile),
        task_utilization=task_utilization_tables(profile),
        utilization_parts=utilization_parts_table(profile),
        utilization_comparison=utilization_comparison_table(profile),
        steps=steps_table(profile),
        step_comparison=step_comparison_table(profile),
    )
    return tables


def report_wall_times(index: IndexData) -> units.WallTimes:
    """The one format of the report's whole-run wall times (IndexData.wall_seconds): a figure reads
    the same on the index as on its page and on the page that compares with it."""
    return units.wall_times(index.wall_seconds)


def collections_table(index: IndexData, hrefs: dict[str, str]) -> Table:
    entries = index.collections
    wall = report_wall_times(index)

    def against(entry) -> str:
        if entry.baseline_collection is None:
            return "n/a"
        if entry.has_different_task_mix and entry.matched_speedup is None:
            return "n/a (no task ran on both sides)"
        if entry.has_different_task_mix:
            return f"{units.speedup(entry.matched_speedup)} (matched tasks)"
        return units.speedup(entry.speedup)

    return table(
        [
            ("collection", False, [f"[{escape_text(entry.title)}]({hrefs[entry.collection]})" for entry in entries]),
            ("runs analyzed", True, counts(entry.runs_analyzed for entry in entries)),
            ("runs excluded", True, counts(entry.runs_excluded for entry in entries)),
            ("mean wall", True, wall.column(entry.mean_wall_seconds for entry in entries)),
            ("median wall", True, wall.column(entry.median_wall_seconds for entry in entries)),
            ("measured by", False, [SOURCE_WORDS.get(entry.measurement_source, "n/a") for entry in entries]),
            (
                "baseline",
                False,
                [escape_text(entry.baseline_title) if entry.baseline_collection else "none" for entry in entries],
            ),
            ("vs baseline", True, [against(entry) for entry in entries]),
            (
                "goodput",
                True,
                [
                    f"at most {share}" if entry.is_goodput_upper_bound else share
                    for entry, share in zip(entries, units.percent_column([e.goodput for e in entries]), strict=True)
                ],
            ),
        ]
    )


def regressions_table(index: IndexData, titles: dict[str, str]) -> Table:
    rows = index.regressions
    names = texts(titles.get(row.collection, row.collection) for row in rows)
    return table([("collection", False, names), *against_baseline_columns(rows, report_wall_times(index))])


def live_collections_table(index: IndexData, hrefs: dict[str, str], titles: dict[str, str]) -> Table:
    entries = list(index.live.values())

    def likely(entry) -> str:
        return time(entry.last_finish_at) if entry.last_finish_at else "none running"

    def finish_range(entry) -> str:
        if entry.last_finish_at is None:
            return "n/a"
        return f"{time(entry.last_finish_calibrated_low_at)} to {time(entry.last_finish_calibrated_high_at)}"

    return table(
        [
            (
                "collection",
                False,
                [f"[{escape_text(titles[entry.collection])}]({hrefs[entry.collection]})" for entry in entries],
            ),
            ("running", True, counts(entry.runs_running for entry in entries)),
            ("stalled", True, counts(entry.runs_stalled for entry in entries)),
            ("abandoned", True, counts(entry.runs_abandoned for entry in entries)),
            ("last running run likely finishes", False, [likely(entry) for entry in entries]),
            ("range", False, [finish_range(entry) for entry in entries]),
        ]
    )


def straggling_ranks_table(index: IndexData, hrefs: dict[str, str]) -> Table:
    runs = index.straggling_ranks
    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("collection", False, [f"[{escape_text(run.collection)}]({hrefs[run.collection]})" for run in runs]),
            ("straggling rank", True, counts(run.straggling_rank for run in runs)),
            ("ranks", True, counts(run.world_size for run in runs)),
            ("lost to the slowest rank", True, units.duration_column([run.lost_to_slowest_seconds for run in runs])),
            ("share of wall", True, units.percent_column([run.lost_share for run in runs])),
        ]
    )


def unstarted_table(index: IndexData) -> Table:
    runs = index.unstarted_runs

    def fix(run) -> str:
        if run.misspelt_as:
            alias = f"RUNLENS_EVENT_ALIASES={run.misspelt_as}=run_start"
            return (
                f"its run_start is written {escape_code(run.misspelt_as, table=True)} "
                f"({escape_code(run.misspelt_at)}): fix the logger, or map it with {escape_code(alias)}"
            )
        return "add its run_start line (collection and task) at the top of the run's log"

    return table(
        [
            ("run", False, codes(run.run_id for run in runs)),
            ("file", False, codes(run.file_path for run in runs)),
            ("events", True, counts(run.events for run in runs)),
            ("the fix", False, [fix(run) for run in runs]),
        ]
    )


def reject_reasons_table(reasons) -> Table:
    return table(
        [
            ("reason", False, codes(reason.reject_reason for reason in reasons)),
            ("lines", True, counts(reason.rejected_lines for reason in reasons)),
            ("files", True, counts(reason.files for reason in reasons)),
            ("first seen at", False, codes(reason.first_seen_at for reason in reasons)),
        ]
    )
