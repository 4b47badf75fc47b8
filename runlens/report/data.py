"""Read the marts into the rows a page is made of.

Every figure comes from a mart column, as the database computed it: durations in seconds, shares
as fractions, comparisons as speedups (baseline over collection). A part of a page reads its mart
through one generic path (rows.py: every column the mart's YAML contract declares), and a query
in queries/ only where it needs a join; units.py formats the figures for a reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from runlens.report.rows import MartRead, Row, contract, mart_row, read_mart, read_query

T = TypeVar("T")
# how many rows a profile lists before "and N more" (rules.md, "Long lists")
SHOWN_SLOWEST_EPOCHS = 5
SHOWN_EPOCH_TASKS = 10
SHOWN_STRAGGLERS = 5
SHOWN_POSITIONS = 12
SHOWN_TASKS = 25
SHOWN_LIVE_RUNS = 20
SHOWN_DISTRIBUTED_RUNS = 10
# how many tasks the GPU utilization section gives a subsection of (the most idle GPU-hours first);
# the by-task table lists every one
SHOWN_UTILIZATION_TASKS = 6
SHOWN_TIMELINE_RUNS = 60  # runs on the timeline chart: past this many the bars are too thin to read

# What each part of a collection's page reads: a mart, which of its rows (besides
# `collection = $collection`, which every one of these adds) and in which order.
IN_COLLECTION = "collection = $collection"
PROFILE_READS = {
    "tasks": MartRead("agg_task_runtime", "runs_analyzed > 0", "mean_wall_seconds desc, task asc"),
    "excluded": MartRead("agg_collection_exclusion_reasons", order_by="runs desc, exclusion_reason asc"),
    "longest_intervals": MartRead("agg_collection_longest_intervals", order_by="runs desc, longest_interval_label asc"),
    "later_windows": MartRead("agg_collection_later_windows"),
    "config_differences": MartRead("cmp_collection_config_differences", order_by="config_key"),
    "task_comparisons": MartRead("cmp_task_runtime", order_by="speedup asc nulls last, task asc"),
    "difference_parts": MartRead("cmp_collection_wall_time_parts", "scope = 'all_tasks'", "part_order"),
    "position_comparisons": MartRead("cmp_collection_interval_positions", order_by="position_order"),
    "straggler_summary": MartRead("agg_collection_stragglers"),
    "profile_sections": MartRead(
        "agg_collection_profile_sections", order_by="section = 'unattributed' asc, share_of_wall desc, section asc"
    ),
    "data_quality": MartRead("agg_collection_data_quality"),
    "reject_reasons": MartRead("agg_collection_reject_reasons", order_by="rejected_lines desc, reject_reason asc"),
    "likely_typos": MartRead("agg_collection_likely_typos", order_by="rejected_lines desc, event_name asc"),
    "approximations": MartRead(
        "agg_collection_marker_approximations", order_by="markers desc, source_format asc, approximation asc"
    ),
    "epochs": MartRead("agg_collection_epochs"),
    "task_epochs": MartRead("agg_task_epochs", order_by="mean_epoch_seconds desc, task asc"),
    "epoch_positions": MartRead("agg_task_epoch_positions", order_by="task asc, epoch_index asc"),
    "slowest_epochs": MartRead("agg_task_epoch_positions", order_by="mean_seconds desc, task asc, epoch_index asc"),
    "interval_kinds": MartRead("agg_collection_interval_kinds", order_by="total_seconds desc, interval_kind asc"),
    "live": MartRead("agg_collection_progress"),
    # running and stalled runs: stalled first, then by estimated finish; abandoned ones apart
    "live_runs": MartRead(
        "fct_run_live_status",
        "live_status in ('running', 'stalled')",
        "live_status desc, estimated_finish_at asc nulls last, run_id asc",
    ),
    "abandoned_runs": MartRead("fct_run_live_status", "live_status = 'abandoned'", "silent_seconds desc, run_id asc"),
    # how often ranges like these held the true finish on the sweep's finished runs (def_eta_calibration)
    "eta_calibration": MartRead("agg_collection_eta_calibration"),
    "span": MartRead("agg_collection_span"),
    "task_gpu_hours": MartRead("agg_task_gpu_hours", order_by="task"),
    "rank_waiting": MartRead("agg_collection_rank_waiting"),
    "goodput": MartRead("agg_collection_goodput", order_by="bucket_order"),
    # what each part of the runs was spent on (runs with several profiles), largest sections first
    "interval_sections": MartRead("agg_collection_interval_sections", order_by="wall_time_part, seconds desc, section"),
    "interval_section_comparison": MartRead(
        "cmp_collection_interval_sections", order_by="wall_time_part, abs(change_seconds) desc, section"
    ),
    "task_goodput": MartRead("agg_task_goodput", order_by="task, bucket_order"),
    # how busy the GPUs were (runs with utilization samples): the idlest first
    "utilization": MartRead("agg_collection_utilization"),
    "utilization_kinds": MartRead(
        "agg_collection_interval_kind_utilization",
        "gpu_hours > 0",
        "idle_gpu_hours desc nulls last, interval_kind asc",
    ),
    "utilization_tasks": MartRead("agg_task_utilization", order_by="idle_gpu_hours desc nulls last, task asc"),
    # a subsection per task with measured GPU-hours, the idlest first; each task's kinds of interval
    # and parts of the sessions, the most idle GPU-hours first
    "utilization_measured_tasks": MartRead(
        "agg_task_utilization", "measured_gpu_hours > 0", "idle_gpu_hours desc, task asc"
    ),
    "utilization_task_kinds": MartRead(
        "agg_task_interval_kind_utilization",
        "gpu_hours > 0",
        "task asc, idle_gpu_hours desc nulls last, interval_kind asc",
    ),
    "utilization_task_parts": MartRead(
        "agg_task_goodput_part_utilization",
        "gpu_hours > 0",
        "task asc, idle_gpu_hours desc nulls last, part asc",
    ),
    # against the baseline: the parts whose utilization moved most first; a part one side did not
    # measure did not move (utilization_change_points NULL): after those that did
    "utilization_comparison": MartRead(
        "cmp_collection_utilization",
        "mean_gpu_utilization_pct is not null or baseline_mean_gpu_utilization_pct is not null",
        "abs(utilization_change_points) desc nulls last, part asc",
    ),
    "utilization_parts": MartRead(
        "agg_collection_goodput_part_utilization", order_by="idle_gpu_hours desc nulls last, part asc"
    ),
    # inside a step (runs with profiler traces): the collection's steps, each task's (the most
    # input-bound first), the parts of each task's GPU time largest first, the rank that held them
    "steps": MartRead("agg_collection_steps"),
    # the productive time the GPUs sat idle inside the profiled steps (goodput, from the traces)
    "productive_gpu_idle": MartRead("agg_collection_productive_gpu_idle"),
    "step_tasks": MartRead("agg_task_steps", order_by="data_loading_share desc nulls last, task asc"),
    "step_parts": MartRead("agg_task_step_parts", "seconds > 0", "task asc, seconds desc, part asc"),
    "step_stragglers": MartRead("agg_task_step_stragglers", order_by="held_steps desc, task asc"),
    # the collection's steps against its baseline's, every task's: the part that moved most first
    "step_comparison": MartRead(
        "cmp_collection_step_parts",
        "scope = 'all_tasks' and (seconds_per_step > 0 or baseline_seconds_per_step > 0)",
        "abs(change_seconds_per_step) desc, part_order asc",
    ),
    # the buckets either side spent time in, the one that moved most first; a bucket one side could
    # not measure did not move (share_change NULL): after those that did
    "goodput_comparison": MartRead(
        "cmp_collection_goodput",
        "seconds_per_run > 0 or baseline_seconds_per_run > 0",
        "abs(share_change) desc nulls last, bucket_order",
    ),
}
# the parts of a page that are one row (None when the mart has none for the collection)
ONE_ROW = {
    "productive_gpu_idle",
    "later_windows",
    "straggler_summary",
    "data_quality",
    "epochs",
    "live",
    "eta_calibration",
    "span",
    "rank_waiting",
    "utilization",
    "steps",
}
# the parts that need a join: queries/<part>.sql, with $collection
PROFILE_QUERIES = (
    "comparison",
    "stragglers",
    "segments",
    "distributed_runs",
    "rank_arrivals",
    "utilization_timeline",
)
QUERY_FILES = {"segments": "run_segments"}
QUERY_PARAMETERS = {"segments": {"shown_runs": SHOWN_TIMELINE_RUNS}}  # beside $collection

# What the index reads (over every collection).
INDEX_READS = {
    "build": MartRead("dim_build"),
    "data_quality": MartRead("agg_build_data_quality"),
    "reject_reasons": MartRead("agg_build_reject_reasons", order_by="rejected_lines desc, reject_reason asc"),
    "likely_typos": MartRead(
        "agg_build_unknown_event_names", "resembles_event_type is not null", "rejected_lines desc, event_name asc"
    ),
    "other_events": MartRead("agg_build_other_events", order_by="other_event_lines desc, event_type asc"),
    "unstarted_runs": MartRead("fct_run_missing_start", order_by="file_path asc, run_id asc"),
    "regressions": MartRead("cmp_task_runtime", "is_regression", "collection asc, speedup asc, task asc"),
    "live": MartRead("agg_collection_progress", "is_live", "collection"),
    # every collection's longest run: one of the figures that choose the report's wall-time unit
    "spans": MartRead("agg_collection_span", order_by="collection"),
    "straggling_ranks": MartRead(
        "fct_run_rank_waiting",
        "straggling_rank is not null and collection is not null",
        "lost_share desc nulls last, run_id asc",
    ),
}


def in_collection(read: MartRead) -> MartRead:
    where = f"{IN_COLLECTION} and ({read.where})" if read.where else IN_COLLECTION
    return MartRead(read.mart, where, read.order_by)


def marts_read() -> set[str]:
    """The marts the generic reads name (the queries in queries/ name theirs in their SQL)."""
    return {read.mart for read in [*PROFILE_READS.values(), *INDEX_READS.values()]}


def first(rows: list[T], limit: int) -> list[T]:
    return rows[:limit]


def beyond(rows: list, limit: int) -> int:
    return max(len(rows) - limit, 0)


@dataclass(frozen=True)
class CollectionProfile:
    """Everything one collection's profile shows."""

    snapshot: Row  # queries/snapshot.sql: dim_collections and agg_collection_runtime
    tasks: list[Row]
    excluded: list[Row]
    longest_intervals: list[Row]
    later_windows: Row | None
    comparison: Row | None
    config_differences: list[Row]
    task_comparisons: list[Row]
    profile_sections: list[Row]
    data_quality: Row
    reject_reasons: list[Row]
    likely_typos: list[Row]
    approximations: list[Row]
    epochs: Row | None = None
    task_epochs: list[Row] = field(default_factory=list)
    epoch_positions: list[Row] = field(default_factory=list)
    slowest_epochs: list[Row] = field(default_factory=list)
    interval_kinds: list[Row] = field(default_factory=list)
    difference_parts: list[Row] = field(default_factory=list)
    position_comparisons: list[Row] = field(default_factory=list)
    stragglers: list[Row] = field(default_factory=list)
    straggler_summary: Row | None = None
    live: Row | None = None
    live_runs: list[Row] = field(default_factory=list)
    abandoned_runs: list[Row] = field(default_factory=list)
    eta_calibration: Row | None = None
    span: Row | None = None
    task_gpu_hours: list[Row] = field(default_factory=list)
    segments: list[Row] = field(default_factory=list)
    distributed_runs: list[Row] = field(default_factory=list)
    rank_waiting: Row | None = None
    rank_arrivals: list[Row] = field(default_factory=list)
    goodput: list[Row] = field(default_factory=list)
    task_goodput: list[Row] = field(default_factory=list)
    goodput_comparison: list[Row] = field(default_factory=list)
    interval_sections: list[Row] = field(default_factory=list)
    interval_section_comparison: list[Row] = field(default_factory=list)
    utilization: Row | None = None
    utilization_kinds: list[Row] = field(default_factory=list)
    utilization_tasks: list[Row] = field(default_factory=list)
    utilization_measured_tasks: list[Row] = field(default_factory=list)
    utilization_task_kinds: list[Row] = field(default_factory=list)
    utilization_task_parts: list[Row] = field(default_factory=list)
    utilization_parts: list[Row] = field(default_factory=list)
    utilization_comparison: list[Row] = field(default_factory=list)
    utilization_timeline: list[Row] = field(default_factory=list)  # queries/utilization_timeline.sql
    steps: Row | None = None  # agg_collection_steps: the profiled steps of the collection's traces
    productive_gpu_idle: Row | None = None  # agg_collection_productive_gpu_idle
    step_tasks: list[Row] = field(default_factory=list)
    step_parts: list[Row] = field(default_factory=list)
    step_stragglers: list[Row] = field(default_factory=list)
    step_comparison: list[Row] = field(default_factory=list)  # cmp_collection_step_parts, all tasks

    @property
    def utilization_moved(self) -> bool:
        """Whether both sides measured a part (so its utilization could move against the baseline)."""
        return any(row.utilization_change_points is not None for row in self.utilization_comparison)

    build: Row | None = None  # the thresholds the marts were built with (dim_build)
    # the whole-run wall times that choose the report's one wall-time unit (IndexData.wall_seconds)
    report_wall_seconds: tuple[float | None, ...] = ()

    @property
    def headline_speedup(self) -> float | None:
        """The speedup the headline quotes: matched tasks when the mixes differ (def_matched_tasks)."""
        if self.comparison is None:
            return None
        comparison = self.comparison
        return comparison.matched_speedup if comparison.has_different_task_mix else comparison.speedup

    @property
    def shown_distributed_runs(self) -> list[Row]:
        return first(self.distributed_runs, SHOWN_DISTRIBUTED_RUNS)

    @property
    def more_distributed_runs(self) -> int:
        return beyond(self.distributed_runs, SHOWN_DISTRIBUTED_RUNS)

    @property
    def difference_split_possible(self) -> bool:
        return bool(self.difference_parts) and all(part.both_sides_have_markers for part in self.difference_parts)

    @property
    def shown_positions(self) -> list[Row]:
        """The positions that moved most (at most SHOWN_POSITIONS), in run order."""
        return [position for position in self.position_comparisons if position.difference_rank <= SHOWN_POSITIONS]

    @property
    def has_shared_positions(self) -> bool:
        """Whether any interval label is on both sides (else the two log other markers)."""
        return any(position.is_on_both_sides for position in self.position_comparisons)

    @property
    def more_positions(self) -> int:
        return beyond(self.position_comparisons, SHOWN_POSITIONS)

    @property
    def shown_stragglers(self) -> list[Row]:
        return first(self.stragglers, SHOWN_STRAGGLERS)

    @property
    def more_stragglers(self) -> int:
        return beyond(self.stragglers, SHOWN_STRAGGLERS)

    @property
    def shown_tasks(self) -> list[Row]:
        return first(self.tasks, SHOWN_TASKS)

    @property
    def more_tasks(self) -> int:
        return beyond(self.tasks, SHOWN_TASKS)

    @property
    def shown_task_comparisons(self) -> list[Row]:
        return first(self.task_comparisons, SHOWN_TASKS)

    @property
    def more_task_comparisons(self) -> int:
        return beyond(self.task_comparisons, SHOWN_TASKS)

    @property
    def shown_live_runs(self) -> list[Row]:
        return first(self.live_runs, SHOWN_LIVE_RUNS)

    @property
    def more_live_runs(self) -> int:
        return beyond(self.live_runs, SHOWN_LIVE_RUNS)

    @property
    def shown_utilization_tasks(self) -> list[Row]:
        """The tasks the GPU utilization section gives a subsection of: those with measured GPU-hours,
        the most idle first, at most SHOWN_UTILIZATION_TASKS; none when one task holds every GPU
        sample (the collection's tables are that task's)."""
        if len(self.utilization_tasks) < 2:
            return []
        return first(self.utilization_measured_tasks, SHOWN_UTILIZATION_TASKS)

    @property
    def more_utilization_tasks(self) -> int:
        if len(self.utilization_tasks) < 2:
            return 0
        return beyond(self.utilization_measured_tasks, SHOWN_UTILIZATION_TASKS)

    def task_utilization(self, task: str) -> tuple[list[Row], list[Row]]:
        """A task's rows by kind of interval and by part of the sessions, the most idle GPU-hours first."""
        kinds = [row for row in self.utilization_task_kinds if row.task == task]
        parts = [row for row in self.utilization_task_parts if row.task == task]
        return kinds, parts

    @property
    def shown_slowest_epochs(self) -> list[Row]:
        return first(self.slowest_epochs, SHOWN_SLOWEST_EPOCHS)

    @property
    def more_slowest_epochs(self) -> int:
        return beyond(self.slowest_epochs, SHOWN_SLOWEST_EPOCHS)

    @property
    def shown_task_epochs(self) -> list[Row]:
        return first(self.task_epochs, SHOWN_EPOCH_TASKS)

    @property
    def more_task_epochs(self) -> int:
        return beyond(self.task_epochs, SHOWN_EPOCH_TASKS)


@dataclass(frozen=True)
class IndexData:
    """Everything the index shows."""

    collections: list[Row]  # queries/collections.sql
    build: Row
    data_quality: Row
    reject_reasons: list[Row]
    likely_typos: list[Row]
    other_events: list[Row]
    unstarted_runs: list[Row]
    chains: list[list[Row]]  # queries/version_chains.sql
    regressions: list[Row]
    live: dict[str, Row]
    straggling_ranks: list[Row] = field(default_factory=list)
    spans: list[Row] = field(default_factory=list)

    @property
    def wall_seconds(self) -> tuple[float | None, ...]:
        """The whole-run wall times that choose the one unit every page and the index give whole-run
        wall times in (units.WallTimes): each collection's shortest and longest analyzed run and its
        longest run, between which every such figure of the report lies (a mean, a task's p95, a
        baseline's mean, a straggler's wall)."""
        seconds = [entry.min_wall_seconds for entry in self.collections]
        seconds += [entry.max_wall_seconds for entry in self.collections]
        return tuple(seconds + [span.longest_run_seconds for span in self.spans])


def load_data_quality_totals(connection) -> Row:
    """What the load read, over every file of the raw folder (one row, also when it read none)."""
    return read_mart(connection, INDEX_READS["data_quality"])[0]


def load_build(connection) -> Row:
    """The raw folder the build read and the as-of time of its "now"-dependent figures."""
    return read_mart(connection, INDEX_READS["build"])[0]


def load_version_chains(connection) -> list[list[Row]]:
    """Each chain of versions to show on the index, its steps from the first version to the newest."""
    chains: dict[str, list[Row]] = {}
    for step in read_query(connection, "version_chains"):
        chains.setdefault(step.chain_collection, []).append(step)
    return list(chains.values())


def load_index(connection) -> IndexData:
    reads = {name: read_mart(connection, spec) for name, spec in INDEX_READS.items() if name not in ("build", "live")}
    return IndexData(
        collections=read_query(connection, "collections"),
        build=load_build(connection),
        data_quality=reads["data_quality"][0],
        reject_reasons=reads["reject_reasons"],
        likely_typos=reads["likely_typos"],
        other_events=reads["other_events"],
        unstarted_runs=reads["unstarted_runs"],
        chains=load_version_chains(connection),
        regressions=reads["regressions"],
        live={entry.collection: entry for entry in read_mart(connection, INDEX_READS["live"])},
        straggling_ranks=reads["straggling_ranks"],
        spans=reads["spans"],
    )


def no_lines(collection: str) -> Row:
    """The data quality of a collection whose files the build did not read: every count 0."""
    counts = {column: 0 for column, kind in contract("agg_collection_data_quality") if kind is int}
    return mart_row("agg_collection_data_quality", collection=collection, **counts)


def load_profile(connection, collection: str, report_wall_seconds: tuple = ()) -> CollectionProfile:
    """Every figure of one collection's profile; `report_wall_seconds` (IndexData.wall_seconds)
    choose its wall-time unit with the rest of the report's."""
    snapshot = read_query(connection, "snapshot", collection=collection)
    if not snapshot:
        raise LookupError(collection)
    parts: dict[str, object] = {}
    for name, spec in PROFILE_READS.items():
        rows = read_mart(connection, in_collection(spec), collection=collection)
        parts[name] = (rows[0] if rows else None) if name in ONE_ROW else rows
    for name in PROFILE_QUERIES:
        rows = read_query(
            connection, QUERY_FILES.get(name, name), collection=collection, **QUERY_PARAMETERS.get(name, {})
        )
        parts[name] = (rows[0] if rows else None) if name == "comparison" else rows
    parts["data_quality"] = parts["data_quality"] or no_lines(collection)
    return CollectionProfile(
        snapshot=snapshot[0], build=load_build(connection), report_wall_seconds=report_wall_seconds, **parts
    )
