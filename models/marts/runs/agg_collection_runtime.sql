-- Wall-time statistics per collection over its analyzed runs (def_statistics).
-- Grain: one row per collection in dim_collections, with NULL figures where no run is analyzed.
with

collections as (
    select * from {{ ref('dim_collections') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null
),

run_counts as (
    select
        collection,
        count(*) filter (where is_analyzed) as runs_analyzed,
        count(*) filter (where not is_analyzed) as runs_excluded,
        count(*) filter (where exclusion_reason = 'failed') as runs_failed,
        count(*) filter (where exclusion_reason = 'incomplete') as runs_incomplete,
        count(*) filter (where exclusion_reason = 'clock_skew') as runs_clock_skew
    from runs
    group by collection
),

statistics as (
    select
        collection,
        {{ runlens.measurement_source_of('measurement_source') }} as measurement_source,
        avg(wall_seconds) as mean_wall_seconds,
        {{ runlens.median('wall_seconds') }} as median_wall_seconds,
        {{ runlens.percentile('wall_seconds', 0.9) }} as p90_wall_seconds,
        {{ runlens.percentile('wall_seconds', 0.95) }} as p95_wall_seconds,
        min(wall_seconds) as min_wall_seconds,
        max(wall_seconds) as max_wall_seconds,
        avg(pre_tail_seconds) as mean_pre_tail_seconds,
        avg(tail_seconds) as mean_tail_seconds,
        max(tail_seconds) as max_tail_seconds,
        avg(tail_share) as mean_tail_share,
        avg(pre_tail_seconds / wall_seconds) filter (where wall_seconds > 0) as mean_pre_tail_share
    from runs
    where is_analyzed
    group by collection
),

task_means as (
    select
        collection,
        task,
        avg(wall_seconds) as mean_wall_seconds
    from runs
    where is_analyzed
    group by collection, task
),

task_spread as (
    select
        collection,
        max(mean_wall_seconds) / nullif(min(mean_wall_seconds), 0) as slowest_to_fastest_task_ratio
    from task_means
    group by collection
),

final as (
    select
        collections.collection,
        coalesce(run_counts.runs_analyzed, 0) as runs_analyzed,
        coalesce(run_counts.runs_excluded, 0) as runs_excluded,
        coalesce(run_counts.runs_failed, 0) as runs_failed,
        coalesce(run_counts.runs_incomplete, 0) as runs_incomplete,
        coalesce(run_counts.runs_clock_skew, 0) as runs_clock_skew,
        statistics.measurement_source,
        statistics.mean_wall_seconds,
        statistics.median_wall_seconds,
        statistics.p90_wall_seconds,
        statistics.p95_wall_seconds,
        statistics.min_wall_seconds,
        statistics.max_wall_seconds,
        statistics.mean_pre_tail_seconds,
        statistics.mean_tail_seconds,
        statistics.max_tail_seconds,
        statistics.mean_tail_share,
        statistics.mean_pre_tail_share,
        task_spread.slowest_to_fastest_task_ratio
    from collections
    left join run_counts on collections.collection = run_counts.collection
    left join statistics on collections.collection = statistics.collection
    left join task_spread on collections.collection = task_spread.collection
)

select * from final
