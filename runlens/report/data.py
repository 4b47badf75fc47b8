"""Read the marts into plain dataclasses for the report.

Every figure comes from a query in queries/ that reads marts only; this module runs those queries
and shapes their rows, nothing more. Unit conversions (seconds to hours or minutes, shares to
percentages) happen in the SQL, so the report shows figures exactly as the database computed them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import duckdb

QUERIES = Path(__file__).with_name("queries")
T = TypeVar("T")
# how many of the slowest epochs and of the tasks the epoch section lists before "and N more"
SHOWN_SLOWEST_EPOCHS = 5
SHOWN_EPOCH_TASKS = 10
# how many stragglers a profile lists before "and N more"
SHOWN_STRAGGLERS = 5


@dataclass(frozen=True)
class CollectionSummary:
    collection: str
    title: str
    baseline_collection: str | None
    runs_analyzed: int
    runs_excluded: int
    measurement_source: str | None
    mean_wall_hours: float | None
    median_wall_hours: float | None
    speedup: float | None


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
    mean_wall_hours: float | None
    median_wall_hours: float | None
    min_wall_hours: float | None
    max_wall_hours: float | None
    mean_pre_tail_hours: float | None
    mean_tail_hours: float | None
    mean_tail_minutes: float | None
    max_tail_minutes: float | None
    mean_tail_share_percent: float | None
    mean_pre_tail_share_percent: float | None


@dataclass(frozen=True)
class TaskRuntime:
    task: str
    runs_analyzed: int
    runs_excluded: int
    mean_wall_hours: float
    median_wall_hours: float
    p90_wall_hours: float
    p95_wall_hours: float
    mean_tail_hours: float | None
    mean_tail_share_percent: float | None
    slowest_to_fastest_ratio: float | None


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
    mean_minutes: float
    mean_minutes_when_longest: float


@dataclass(frozen=True)
class LaterWindows:
    window_count: int
    min_mean_minutes: float
    max_mean_minutes: float
    summed_mean_minutes: float


@dataclass(frozen=True)
class Comparison:
    baseline_collection: str
    baseline_title: str | None
    runs_analyzed: int
    baseline_runs_analyzed: int
    mean_wall_hours: float | None
    baseline_mean_wall_hours: float | None
    delta_hours: float | None
    speedup: float | None
    measurement_source: str | None
    baseline_measurement_source: str | None
    sources_match: bool | None


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
    mean_wall_hours: float | None
    baseline_mean_wall_hours: float | None
    speedup: float | None
    is_regression: bool


@dataclass(frozen=True)
class ChainStep:
    chain_collection: str
    step: int
    step_collection: str
    step_title: str
    step_speedup: float | None
    step_regressed_tasks: int


@dataclass(frozen=True)
class Regression:
    collection: str
    baseline_collection: str
    task: str
    runs: int
    baseline_runs: int
    mean_wall_hours: float
    baseline_mean_wall_hours: float
    speedup: float | None


@dataclass(frozen=True)
class ProfileSection:
    section: str
    total_hours: float
    share_percent: float | None
    mean_hours_per_run: float
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
    mean_minutes: float
    baseline_mean_minutes: float
    delta_minutes: float
    ratio: float | None
    share_percent: float | None


@dataclass(frozen=True)
class PositionComparison:
    interval_index: int
    label: str
    runs: int
    baseline_runs: int
    mean_minutes: float
    baseline_mean_minutes: float
    ratio: float | None


@dataclass(frozen=True)
class Straggler:
    run_id: str
    task: str | None
    wall_hours: float
    wall_to_task_median: float | None
    worst_interval_label: str | None
    worst_interval_minutes: float | None
    worst_interval_task_median_minutes: float | None
    worst_interval_robust_z: float | None
    is_slow_overall: bool
    has_outlier_interval: bool


@dataclass(frozen=True)
class BuildContext:
    raw_dir: str
    as_of_at: datetime
    as_of_source: str


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
class MarkerApproximation:
    source_format: str
    approximation: str
    markers: int
    runs: int


@dataclass(frozen=True)
class EpochSummary:
    """A collection's epochs over its analysed event-log runs (agg_collection_epochs)."""

    runs_with_epochs: int
    runs_ending_at_final_epoch_end: int
    epochs: int
    mean_epochs_per_run: float
    median_epochs_per_run: float
    mean_epoch_minutes: float
    p50_epoch_minutes: float
    p90_epoch_minutes: float
    max_epoch_minutes: float
    mean_first_epoch_minutes: float
    mean_later_epoch_median_minutes: float | None
    mean_first_epoch_excess_seconds: float | None
    mean_first_epoch_ratio: float | None


@dataclass(frozen=True)
class TaskEpochs:
    task: str
    runs_with_epochs: int
    median_epochs_per_run: float
    mean_epoch_minutes: float
    p50_epoch_minutes: float
    p90_epoch_minutes: float
    mean_first_epoch_minutes: float
    mean_later_epoch_median_minutes: float | None
    mean_first_epoch_excess_seconds: float | None


@dataclass(frozen=True)
class EpochPosition:
    task: str
    epoch_index: int
    runs: int
    mean_minutes: float


@dataclass(frozen=True)
class IntervalKind:
    interval_kind: str
    intervals: int
    zero_second_intervals: int
    total_hours: float
    share_percent: float | None


@dataclass(frozen=True)
class LiveProgress:
    as_of_at: datetime
    is_live: bool
    runs_completed: int
    runs_failed: int
    runs_running: int
    runs_stalled: int
    last_finish_low_at: datetime | None
    last_finish_at: datetime | None
    last_finish_high_at: datetime | None
    spent_percent: float | None


@dataclass(frozen=True)
class LiveRun:
    run_id: str
    task: str
    live_status: str
    last_marker_label: str
    elapsed_hours: float
    silent_minutes: float
    peer_set: str
    peer_runs: int
    estimated_finish_low_at: datetime | None
    estimated_finish_at: datetime | None
    estimated_finish_high_at: datetime | None


@dataclass(frozen=True)
class CollectionSpan:
    first_started_at: datetime
    span_ended_at: datetime
    is_open: bool
    span_hours: float
    runs: int
    run_hours: float
    peak_concurrent_runs: int
    mean_concurrent_runs: float | None
    longest_run_id: str
    longest_run_hours: float
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
    last_finish_low_at: datetime | None
    last_finish_at: datetime | None
    last_finish_high_at: datetime | None


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
    other_events: list[OtherEventType]
    likely_typos: list[LikelyTypo]
    approximations: list[MarkerApproximation]
    # epochs (agg_collection_epochs and the marts beside it); the report shows them for
    # many-epoch collections only (rules.many_epochs)
    epochs: EpochSummary | None = None
    task_epochs: list[TaskEpochs] = field(default_factory=list)
    epoch_positions: list[EpochPosition] = field(default_factory=list)
    slowest_epochs: list[EpochPosition] = field(default_factory=list)
    interval_kinds: list[IntervalKind] = field(default_factory=list)
    # against the baseline, part by part and position by position; stragglers (issue 13)
    difference_parts: list[DifferencePart] = field(default_factory=list)
    position_comparisons: list[PositionComparison] = field(default_factory=list)
    stragglers: list[Straggler] = field(default_factory=list)
    # live sweeps: progress, running and stalled runs, span and concurrency (issue 16)
    live: LiveProgress | None = None
    live_runs: list[LiveRun] = field(default_factory=list)
    span: CollectionSpan | None = None
    task_gpu_hours: list[TaskGpuHours] = field(default_factory=list)
    segments: list[RunSegment] = field(default_factory=list)

    @property
    def difference_split_possible(self) -> bool:
        return bool(self.difference_parts) and all(part.both_sides_have_markers for part in self.difference_parts)

    @property
    def shown_stragglers(self) -> list[Straggler]:
        return self.stragglers[:SHOWN_STRAGGLERS]

    @property
    def more_stragglers(self) -> int:
        return max(len(self.stragglers) - SHOWN_STRAGGLERS, 0)

    @property
    def slowest_tasks(self) -> list[TaskRuntime]:
        return self.tasks[:3]

    @property
    def fastest_tasks(self) -> list[TaskRuntime]:
        return self.tasks[::-1][:3]

    @property
    def shown_slowest_epochs(self) -> list[EpochPosition]:
        return self.slowest_epochs[:SHOWN_SLOWEST_EPOCHS]

    @property
    def more_slowest_epochs(self) -> int:
        return max(len(self.slowest_epochs) - SHOWN_SLOWEST_EPOCHS, 0)

    @property
    def shown_task_epochs(self) -> list[TaskEpochs]:
        return self.task_epochs[:SHOWN_EPOCH_TASKS]

    @property
    def more_task_epochs(self) -> int:
        return max(len(self.task_epochs) - SHOWN_EPOCH_TASKS, 0)


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


def load_data_quality(connection) -> DataQuality:
    """What the load read, over every file of the raw folder (one row, also when it read none)."""
    return fetch(connection, "data_quality", DataQuality)[0]


def load_build(connection) -> BuildContext:
    """The raw folder the build read and the as-of time of its "now"-dependent figures."""
    return fetch(connection, "build", BuildContext)[0]


def load_version_chains(connection) -> list[list[ChainStep]]:
    """Each chain of versions to show on the index, its steps from the first version to the newest."""
    chains: dict[str, list[ChainStep]] = {}
    for step in fetch(connection, "version_chains", ChainStep):
        chains.setdefault(step.chain_collection, []).append(step)
    return list(chains.values())


def load_regressions(connection) -> list[Regression]:
    return fetch(connection, "regressions", Regression)


def load_live_collections(connection) -> list[LiveCollection]:
    """The collections with a run still going at the as-of time, for the index."""
    return fetch(connection, "live_collections", LiveCollection)


def load_profile(connection, collection: str) -> CollectionProfile:
    """Every figure of one collection's profile."""
    snapshot = fetch_one(connection, "snapshot", Snapshot, collection=collection)
    if snapshot is None:
        raise LookupError(collection)
    return CollectionProfile(
        snapshot=snapshot,
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
        profile_sections=fetch(connection, "profile_sections", ProfileSection, collection=collection),
        data_quality=load_data_quality(connection),
        reject_reasons=fetch(connection, "reject_reasons", RejectReason),
        other_events=fetch(connection, "other_events", OtherEventType),
        likely_typos=fetch(connection, "likely_typos", LikelyTypo),
        approximations=fetch(connection, "approximations", MarkerApproximation, collection=collection),
        epochs=fetch_one(connection, "epochs", EpochSummary, collection=collection),
        task_epochs=fetch(connection, "task_epochs", TaskEpochs, collection=collection),
        epoch_positions=fetch(connection, "epoch_positions", EpochPosition, collection=collection),
        slowest_epochs=fetch(connection, "slowest_epochs", EpochPosition, collection=collection),
        interval_kinds=fetch(connection, "interval_kinds", IntervalKind, collection=collection),
        live=fetch_one(connection, "live_progress", LiveProgress, collection=collection),
        live_runs=fetch(connection, "live_runs", LiveRun, collection=collection),
        span=fetch_one(connection, "span", CollectionSpan, collection=collection),
        task_gpu_hours=fetch(connection, "task_gpu_hours", TaskGpuHours, collection=collection),
        segments=fetch(connection, "run_segments", RunSegment, collection=collection),
    )
