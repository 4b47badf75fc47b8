"""Read the marts into plain dataclasses for the report.

Every figure comes from a query in queries/ that reads marts only and converts nothing: durations
in seconds, shares as fractions, comparisons as speedups (baseline over collection), exactly as
the database computed them. This module runs those queries and shapes their rows; units.py
formats them for a reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import duckdb

QUERIES = Path(__file__).with_name("queries")
T = TypeVar("T")
# how many rows a profile lists before "and N more" (rules.md, "Long lists")
SHOWN_SLOWEST_EPOCHS = 5
SHOWN_EPOCH_TASKS = 10
SHOWN_STRAGGLERS = 5
SHOWN_POSITIONS = 12
SHOWN_TASKS = 25
SHOWN_LIVE_RUNS = 20
SHOWN_DISTRIBUTED_RUNS = 10


@dataclass(frozen=True)
class CollectionSummary:
    collection: str
    title: str
    baseline_collection: str | None
    baseline_title: str | None
    runs_analyzed: int
    runs_excluded: int
    measurement_source: str | None
    mean_wall_seconds: float | None
    median_wall_seconds: float | None
    speedup: float | None
    matched_speedup: float | None
    has_different_task_mix: bool | None
    goodput: float | None
    is_goodput_upper_bound: bool | None


@dataclass(frozen=True)
class Snapshot:
    collection: str
    title: str
    design_url: str | None
    results_url: str | None
    baseline_collection: str | None
    runs_analyzed: int
    runs_excluded: int
    runs_failed: int
    runs_incomplete: int
    runs_clock_skew: int
    measurement_source: str | None
    mean_wall_seconds: float | None
    median_wall_seconds: float | None
    p90_wall_seconds: float | None
    min_wall_seconds: float | None
    max_wall_seconds: float | None
    mean_pre_tail_seconds: float | None
    mean_tail_seconds: float | None
    max_tail_seconds: float | None
    mean_tail_share: float | None
    mean_pre_tail_share: float | None
    slowest_to_fastest_task_ratio: float | None


@dataclass(frozen=True)
class TaskRuntime:
    task: str
    runs_analyzed: int
    runs_excluded: int
    mean_wall_seconds: float
    median_wall_seconds: float
    p90_wall_seconds: float
    p95_wall_seconds: float
    mean_tail_seconds: float | None
    mean_tail_share: float | None


@dataclass(frozen=True)
class ExcludedRuns:
    exclusion_reason: str
    runs: int
    example_run_ids: str


@dataclass(frozen=True)
class LongestInterval:
    label: str
    runs: int
    runs_with_intervals: int
    mean_seconds: float
    mean_seconds_when_longest: float


@dataclass(frozen=True)
class LaterWindows:
    window_count: int
    min_mean_seconds: float
    max_mean_seconds: float
    summed_mean_seconds: float


@dataclass(frozen=True)
class Comparison:
    baseline_collection: str
    baseline_title: str
    runs_analyzed: int
    baseline_runs_analyzed: int
    mean_wall_seconds: float | None
    baseline_mean_wall_seconds: float | None
    delta_seconds: float | None
    speedup: float | None
    measurement_source: str | None
    baseline_measurement_source: str | None
    sources_match: bool | None
    regressed_tasks: int
    matched_tasks: int
    matched_runs: int
    matched_mean_wall_seconds: float | None
    matched_baseline_mean_wall_seconds: float | None
    matched_speedup: float | None
    has_different_task_mix: bool

    @property
    def headline_speedup(self) -> float | None:
        """The speedup the headline quotes: matched tasks when the mixes differ (def_matched_tasks)."""
        return self.matched_speedup if self.has_different_task_mix else self.speedup


@dataclass(frozen=True)
class ConfigDifference:
    config_key: str
    values: str
    baseline_values: str


@dataclass(frozen=True)
class TaskComparison:
    task: str
    runs: int
    baseline_runs: int
    mean_wall_seconds: float | None
    baseline_mean_wall_seconds: float | None
    speedup: float | None
    is_regression: bool


@dataclass(frozen=True)
class ChainStep:
    chain_collection: str
    step: int
    step_collection: str
    step_title: str
    step_speedup: float | None
    step_matched_speedup: float | None
    step_has_different_task_mix: bool
    step_regressed_tasks: int


@dataclass(frozen=True)
class Regression:
    collection: str
    baseline_collection: str
    task: str
    runs: int
    baseline_runs: int
    mean_wall_seconds: float
    baseline_mean_wall_seconds: float
    speedup: float | None


@dataclass(frozen=True)
class ProfileSection:
    section: str
    total_seconds: float
    share_of_wall: float | None
    mean_seconds_per_run: float
    profiled_runs: int


@dataclass(frozen=True)
class DataQuality:
    files: int
    unreadable_files: int
    physical_lines: int
    blank_lines: int
    lines_read: int
    accepted: int
    duplicates: int
    other_events: int
    rejected: int


@dataclass(frozen=True)
class DifferencePart:
    part: str
    both_sides_have_markers: bool
    mean_seconds: float
    baseline_mean_seconds: float
    delta_seconds: float
    speedup: float | None
    share_of_difference: float | None


@dataclass(frozen=True)
class PositionComparison:
    label: str
    position_order: int
    runs: int
    baseline_runs: int
    mean_seconds: float | None
    baseline_mean_seconds: float | None
    delta_seconds: float | None
    speedup: float | None
    is_on_both_sides: bool
    is_held_by_few_runs: bool
    difference_rank: int


@dataclass(frozen=True)
class Straggler:
    run_id: str
    task: str | None
    wall_seconds: float
    wall_to_peer_median: float | None
    worst_interval_label: str | None
    worst_interval_seconds: float | None
    worst_interval_task_median_seconds: float | None
    worst_interval_robust_z: float | None
    downtime_seconds: float
    is_slow_overall: bool
    has_outlier_interval: bool


@dataclass(frozen=True)
class DistributedRun:
    run_id: str
    task: str | None
    world_size: int
    wall_seconds: float | None
    lost_to_slowest_seconds: float
    lost_share: float | None
    lost_basis: str
    straggling_rank: int | None
    straggling_rank_times: int
    straggler_points: int
    stopped_ranks: int
    first_stopped_rank: int | None
    first_stopped_rank_last_marker: str | None
    first_stopped_rank_status: str | None


@dataclass(frozen=True)
class RankWaiting:
    distributed_runs: int
    runs_with_straggling_rank: int
    runs_with_stopped_ranks: int
    wall_seconds: float | None
    lost_to_slowest_seconds: float | None
    lost_share: float | None


@dataclass(frozen=True)
class GoodputBucket:
    bucket: str
    runs: int
    runs_unmeasured: int
    unmeasured_seconds: float | None
    seconds: float
    share_of_wall: float | None
    gpu_hours: float | None
    share_of_gpu_hours: float | None
    total_gpu_hours: float | None
    wall_seconds: float


@dataclass(frozen=True)
class TaskGoodputBucket:
    task: str
    bucket: str
    seconds: float
    share_of_wall: float | None
    wall_seconds: float


@dataclass(frozen=True)
class GoodputChange:
    bucket: str
    share_of_wall: float | None
    baseline_share_of_wall: float | None
    share_change: float | None
    seconds_per_run: float
    baseline_seconds_per_run: float


@dataclass(frozen=True)
class RankArrival:
    run_id: str
    marker_label: str
    label_occurrence: int
    arrival_spread_seconds: float
    last_rank: int


@dataclass(frozen=True)
class StragglingRank:
    run_id: str
    collection: str
    straggling_rank: int
    world_size: int
    lost_to_slowest_seconds: float
    lost_share: float | None


@dataclass(frozen=True)
class StragglerSummary:
    runs: int
    runs_scored: int
    stragglers: int
    slow_overall: int
    with_outlier_interval: int
    wall_multiple_threshold: float
    robust_z_threshold: float
    min_excess_share: float
    min_excess_seconds: float
    min_task_runs: int


@dataclass(frozen=True)
class BuildContext:
    raw_dir: str
    as_of_at: datetime
    as_of_source: str
    regression_threshold: float
    regression_min_runs: int
    stall_multiple: float
    stall_min_seconds: float


@dataclass(frozen=True)
class RejectReason:
    reject_reason: str
    rejected_lines: int
    files: int
    first_seen_at: str


@dataclass(frozen=True)
class OtherEventType:
    event_type: str
    other_event_lines: int
    runs: int


@dataclass(frozen=True)
class LikelyTypo:
    event_name: str
    resembles_event_type: str
    rejected_lines: int
    first_seen_at: str


@dataclass(frozen=True)
class UnstartedRun:
    run_id: str
    file_path: str
    files: int
    events: int
    misspelt_as: str | None
    misspelt_at: str | None


@dataclass(frozen=True)
class MarkerApproximation:
    source_format: str
    approximation: str
    markers: int
    runs: int


@dataclass(frozen=True)
class EpochSummary:
    """A collection's epochs over its analyzed event-log runs (agg_collection_epochs)."""

    runs_with_epochs: int
    runs_ending_at_final_epoch_end: int
    epochs: int
    mean_epochs_per_run: float
    median_epochs_per_run: float
    mean_epoch_seconds: float
    p50_epoch_seconds: float
    p90_epoch_seconds: float
    max_epoch_seconds: float
    mean_first_epoch_seconds: float
    mean_later_epoch_median_seconds: float | None
    mean_first_epoch_excess_seconds: float | None
    mean_first_epoch_ratio: float | None


@dataclass(frozen=True)
class TaskEpochs:
    task: str
    runs_with_epochs: int
    median_epochs_per_run: float
    mean_epoch_seconds: float
    p50_epoch_seconds: float
    p90_epoch_seconds: float
    mean_first_epoch_seconds: float
    mean_later_epoch_median_seconds: float | None
    mean_first_epoch_excess_seconds: float | None


@dataclass(frozen=True)
class EpochPosition:
    task: str
    epoch_index: int
    runs: int
    mean_seconds: float


@dataclass(frozen=True)
class IntervalKind:
    interval_kind: str
    intervals: int
    zero_second_intervals: int
    total_seconds: float
    share_of_wall: float | None


@dataclass(frozen=True)
class LiveProgress:
    as_of_at: datetime
    is_live: bool
    runs_completed: int
    runs_failed: int
    runs_running: int
    runs_stalled: int
    runs_abandoned: int
    last_finish_low_at: datetime | None
    last_finish_at: datetime | None
    last_finish_high_at: datetime | None
    spent_share: float | None


@dataclass(frozen=True)
class LiveRun:
    run_id: str
    task: str
    live_status: str
    last_marker_label: str
    elapsed_seconds: float
    silent_seconds: float
    stall_threshold_seconds: float
    peer_set: str
    peer_runs: int
    estimated_finish_low_at: datetime | None
    estimated_finish_at: datetime | None
    estimated_finish_high_at: datetime | None


@dataclass(frozen=True)
class AbandonedRun:
    run_id: str
    task: str
    last_marker_label: str
    last_event_at: datetime
    silent_seconds: float
    abandon_threshold_seconds: float


@dataclass(frozen=True)
class CollectionSpan:
    first_started_at: datetime
    span_ended_at: datetime
    is_open: bool
    span_seconds: float
    runs: int
    run_seconds: float
    peak_concurrent_runs: int
    mean_concurrent_runs: float | None
    longest_run_id: str
    longest_run_seconds: float
    is_longest_run_expected: bool
    runs_with_gpus: int
    gpu_hours: float | None


@dataclass(frozen=True)
class TaskGpuHours:
    task: str
    runs: int
    runs_with_gpus: int
    gpu_hours: float | None


@dataclass(frozen=True)
class RunSegment:
    run_id: str
    task: str
    started_at: datetime
    ended_at: datetime
    is_open: bool
    live_status: str | None


@dataclass(frozen=True)
class LiveCollection:
    collection: str
    runs_running: int
    runs_stalled: int
    runs_abandoned: int
    last_finish_low_at: datetime | None
    last_finish_at: datetime | None
    last_finish_high_at: datetime | None


def first(rows: list[T], limit: int) -> list[T]:
    return rows[:limit]


def beyond(rows: list, limit: int) -> int:
    return max(len(rows) - limit, 0)


@dataclass(frozen=True)
class CollectionProfile:
    """Everything one collection's profile shows."""

    snapshot: Snapshot
    tasks: list[TaskRuntime]
    excluded: list[ExcludedRuns]
    longest_intervals: list[LongestInterval]
    later_windows: LaterWindows | None
    comparison: Comparison | None
    config_differences: list[ConfigDifference]
    task_comparisons: list[TaskComparison]
    profile_sections: list[ProfileSection]
    data_quality: DataQuality
    reject_reasons: list[RejectReason]
    likely_typos: list[LikelyTypo]
    approximations: list[MarkerApproximation]
    epochs: EpochSummary | None = None
    task_epochs: list[TaskEpochs] = field(default_factory=list)
    epoch_positions: list[EpochPosition] = field(default_factory=list)
    slowest_epochs: list[EpochPosition] = field(default_factory=list)
    interval_kinds: list[IntervalKind] = field(default_factory=list)
    difference_parts: list[DifferencePart] = field(default_factory=list)
    position_comparisons: list[PositionComparison] = field(default_factory=list)
    stragglers: list[Straggler] = field(default_factory=list)
    straggler_summary: StragglerSummary | None = None
    live: LiveProgress | None = None
    live_runs: list[LiveRun] = field(default_factory=list)
    abandoned_runs: list[AbandonedRun] = field(default_factory=list)
    span: CollectionSpan | None = None
    task_gpu_hours: list[TaskGpuHours] = field(default_factory=list)
    segments: list[RunSegment] = field(default_factory=list)
    distributed_runs: list[DistributedRun] = field(default_factory=list)
    rank_waiting: RankWaiting | None = None
    rank_arrivals: list[RankArrival] = field(default_factory=list)
    goodput: list[GoodputBucket] = field(default_factory=list)
    task_goodput: list[TaskGoodputBucket] = field(default_factory=list)
    goodput_comparison: list[GoodputChange] = field(default_factory=list)
    build: BuildContext | None = None  # the thresholds the marts were built with (dim_build)

    @property
    def shown_distributed_runs(self) -> list[DistributedRun]:
        return first(self.distributed_runs, SHOWN_DISTRIBUTED_RUNS)

    @property
    def more_distributed_runs(self) -> int:
        return beyond(self.distributed_runs, SHOWN_DISTRIBUTED_RUNS)

    @property
    def difference_split_possible(self) -> bool:
        return bool(self.difference_parts) and all(part.both_sides_have_markers for part in self.difference_parts)

    @property
    def shown_positions(self) -> list[PositionComparison]:
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
    def shown_stragglers(self) -> list[Straggler]:
        return first(self.stragglers, SHOWN_STRAGGLERS)

    @property
    def more_stragglers(self) -> int:
        return beyond(self.stragglers, SHOWN_STRAGGLERS)

    @property
    def shown_tasks(self) -> list[TaskRuntime]:
        return first(self.tasks, SHOWN_TASKS)

    @property
    def more_tasks(self) -> int:
        return beyond(self.tasks, SHOWN_TASKS)

    @property
    def shown_task_comparisons(self) -> list[TaskComparison]:
        return first(self.task_comparisons, SHOWN_TASKS)

    @property
    def more_task_comparisons(self) -> int:
        return beyond(self.task_comparisons, SHOWN_TASKS)

    @property
    def shown_live_runs(self) -> list[LiveRun]:
        return first(self.live_runs, SHOWN_LIVE_RUNS)

    @property
    def more_live_runs(self) -> int:
        return beyond(self.live_runs, SHOWN_LIVE_RUNS)

    @property
    def shown_slowest_epochs(self) -> list[EpochPosition]:
        return first(self.slowest_epochs, SHOWN_SLOWEST_EPOCHS)

    @property
    def more_slowest_epochs(self) -> int:
        return beyond(self.slowest_epochs, SHOWN_SLOWEST_EPOCHS)

    @property
    def shown_task_epochs(self) -> list[TaskEpochs]:
        return first(self.task_epochs, SHOWN_EPOCH_TASKS)

    @property
    def more_task_epochs(self) -> int:
        return beyond(self.task_epochs, SHOWN_EPOCH_TASKS)


@dataclass(frozen=True)
class IndexData:
    """Everything the index shows."""

    collections: list[CollectionSummary]
    build: BuildContext
    data_quality: DataQuality
    reject_reasons: list[RejectReason]
    likely_typos: list[LikelyTypo]
    other_events: list[OtherEventType]
    unstarted_runs: list[UnstartedRun]
    chains: list[list[ChainStep]]
    regressions: list[Regression]
    live: dict[str, LiveCollection]
    straggling_ranks: list[StragglingRank] = field(default_factory=list)


def fetch(connection: duckdb.DuckDBPyConnection, query: str, row_type: type[T], **params) -> list[T]:
    """Run queries/<query>.sql with named parameters and shape each row as row_type."""
    cursor = connection.execute((QUERIES / f"{query}.sql").read_text(encoding="utf-8"), params)
    columns = [description[0] for description in cursor.description]
    expected = [field.name for field in fields(row_type)]
    if columns != expected:
        raise RuntimeError(f"query {query}.sql returns {columns}, but {row_type.__name__} expects {expected}")
    return [row_type(*row) for row in cursor.fetchall()]


def fetch_one(connection, query: str, row_type: type[T], **params) -> T | None:
    rows = fetch(connection, query, row_type, **params)
    return rows[0] if rows else None


def load_collections(connection) -> list[CollectionSummary]:
    return fetch(connection, "collections", CollectionSummary)


def load_data_quality_totals(connection) -> DataQuality:
    """What the load read, over every file of the raw folder (one row, also when it read none)."""
    return fetch(connection, "data_quality_totals", DataQuality)[0]


def load_build(connection) -> BuildContext:
    """The raw folder the build read and the as-of time of its "now"-dependent figures."""
    return fetch(connection, "build", BuildContext)[0]


def load_version_chains(connection) -> list[list[ChainStep]]:
    """Each chain of versions to show on the index, its steps from the first version to the newest."""
    chains: dict[str, list[ChainStep]] = {}
    for step in fetch(connection, "version_chains", ChainStep):
        chains.setdefault(step.chain_collection, []).append(step)
    return list(chains.values())


def load_index(connection) -> IndexData:
    return IndexData(
        collections=load_collections(connection),
        build=load_build(connection),
        data_quality=load_data_quality_totals(connection),
        reject_reasons=fetch(connection, "all_reject_reasons", RejectReason),
        likely_typos=fetch(connection, "all_likely_typos", LikelyTypo),
        other_events=fetch(connection, "other_events", OtherEventType),
        unstarted_runs=fetch(connection, "unstarted_runs", UnstartedRun),
        chains=load_version_chains(connection),
        regressions=fetch(connection, "regressions", Regression),
        live={entry.collection: entry for entry in fetch(connection, "live_collections", LiveCollection)},
        straggling_ranks=fetch(connection, "straggling_ranks", StragglingRank),
    )


def load_profile(connection, collection: str) -> CollectionProfile:
    """Every figure of one collection's profile."""
    snapshot = fetch_one(connection, "snapshot", Snapshot, collection=collection)
    if snapshot is None:
        raise LookupError(collection)
    quality = fetch_one(connection, "data_quality", DataQuality, collection=collection)
    return CollectionProfile(
        snapshot=snapshot,
        build=load_build(connection),
        tasks=fetch(connection, "tasks", TaskRuntime, collection=collection),
        excluded=fetch(connection, "excluded_runs", ExcludedRuns, collection=collection),
        longest_intervals=fetch(connection, "longest_intervals", LongestInterval, collection=collection),
        later_windows=fetch_one(connection, "later_windows", LaterWindows, collection=collection),
        comparison=fetch_one(connection, "comparison", Comparison, collection=collection),
        config_differences=fetch(connection, "config_differences", ConfigDifference, collection=collection),
        task_comparisons=fetch(connection, "task_comparison", TaskComparison, collection=collection),
        difference_parts=fetch(connection, "difference_parts", DifferencePart, collection=collection),
        position_comparisons=fetch(connection, "position_comparison", PositionComparison, collection=collection),
        stragglers=fetch(connection, "stragglers", Straggler, collection=collection),
        straggler_summary=fetch_one(connection, "straggler_summary", StragglerSummary, collection=collection),
        profile_sections=fetch(connection, "profile_sections", ProfileSection, collection=collection),
        data_quality=quality or DataQuality(0, 0, 0, 0, 0, 0, 0, 0, 0),
        reject_reasons=fetch(connection, "reject_reasons", RejectReason, collection=collection),
        likely_typos=fetch(connection, "likely_typos", LikelyTypo, collection=collection),
        approximations=fetch(connection, "approximations", MarkerApproximation, collection=collection),
        epochs=fetch_one(connection, "epochs", EpochSummary, collection=collection),
        task_epochs=fetch(connection, "task_epochs", TaskEpochs, collection=collection),
        epoch_positions=fetch(connection, "epoch_positions", EpochPosition, collection=collection),
        slowest_epochs=fetch(connection, "slowest_epochs", EpochPosition, collection=collection),
        interval_kinds=fetch(connection, "interval_kinds", IntervalKind, collection=collection),
        live=fetch_one(connection, "live_progress", LiveProgress, collection=collection),
        live_runs=fetch(connection, "live_runs", LiveRun, collection=collection),
        abandoned_runs=fetch(connection, "abandoned_runs", AbandonedRun, collection=collection),
        span=fetch_one(connection, "span", CollectionSpan, collection=collection),
        task_gpu_hours=fetch(connection, "task_gpu_hours", TaskGpuHours, collection=collection),
        segments=fetch(connection, "run_segments", RunSegment, collection=collection),
        distributed_runs=fetch(connection, "distributed_runs", DistributedRun, collection=collection),
        rank_waiting=fetch_one(connection, "rank_waiting", RankWaiting, collection=collection),
        rank_arrivals=fetch(connection, "rank_arrivals", RankArrival, collection=collection),
        goodput=fetch(connection, "goodput", GoodputBucket, collection=collection),
        task_goodput=fetch(connection, "task_goodput", TaskGoodputBucket, collection=collection),
        goodput_comparison=fetch(connection, "goodput_comparison", GoodputChange, collection=collection),
    )
