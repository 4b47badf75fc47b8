-- Mean duration of the pre-epoch interval at each position, over analyzed runs that have markers,
-- whatever the source of their wall time (def_pre_epoch; positions: def_interval_positions, so a
-- restart's downtime is no position), and which positions are later windows (def_later_windows).
-- Incremental by collection: a refresh computes again the collections whose runs changed
-- (macros/run_groups.sql).
-- Grain: one row per collection and interval_index (the position).
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config('collection')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and {{ runlens.is_group_to_compute('collection') }}
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch and not is_downtime
),

positioned as (
    select
        runs.collection,
        intervals.position_index as interval_index,
        intervals.position_label as label,
        intervals.seconds
    from intervals
    inner join runs on intervals.run_id = runs.run_id
),

label_ranks as (
    -- the label seen most often at a position; ties go to the alphabetically first
    select
        collection,
        interval_index,
        label,
        row_number() over (
            partition by collection, interval_index
            order by count(*) desc, label
        ) as label_rank
    from positioned
    group by collection, interval_index, label
),

position_stats as (
    select
        collection,
        interval_index,
        count(*) as runs,
        avg(seconds) as mean_seconds,
        {{ runlens.median('seconds') }} as median_seconds,
        {{ runlens.percentile('seconds', 0.9) }} as p90_seconds,
        {{ runlens.percentile('seconds', 0.95) }} as p95_seconds,
        min(seconds) as min_seconds,
        max(seconds) as max_seconds
    from positioned
    group by collection, interval_index
),

opening_blocks as (
    select
        collection,
        runs as runs_with_pre_epoch
    from position_stats
    where interval_index = 1
),

final as (
    select
        position_stats.collection,
        position_stats.interval_index,
        position_stats.runs,
        position_stats.mean_seconds,
        position_stats.median_seconds,
        position_stats.p90_seconds,
        position_stats.p95_seconds,
        position_stats.min_seconds,
        position_stats.max_seconds,
        label_ranks.label as most_common_label,
        coalesce(
            position_stats.interval_index > 1
            and position_stats.runs * 2 >= opening_blocks.runs_with_pre_epoch,
            false
        ) as is_later_window,
        {{ runlens.build_started_at() }} as computed_at
    from position_stats
    inner join label_ranks
        on position_stats.collection = label_ranks.collection
        and position_stats.interval_index = label_ranks.interval_index
        and label_ranks.label_rank = 1
    left join opening_blocks on position_stats.collection = opening_blocks.collection
)

select * from final
