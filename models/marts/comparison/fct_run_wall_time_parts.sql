-- depends_on: {{ ref('int_run_versions') }}
-- Each analyzed run's wall time split into the parts its markers bound (def_wall_time_parts): the
-- opening block, the later pre-epoch windows together, the final tail, and what is left.
-- Grain: one row per analyzed run with a collection.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null and {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch and {{ runlens.is_run_to_compute('run_id') }}
),

pre_epoch_parts as (
    select
        run_id,
        sum(case when interval_index = 1 then seconds else 0 end) as opening_block_seconds,
        sum(case when interval_index > 1 then seconds else 0 end) as later_windows_seconds
    from intervals
    group by run_id
),

final as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.measurement_source,
        runs.wall_seconds,
        pre_epoch_parts.run_id is not null as has_pre_epoch_markers,
        coalesce(pre_epoch_parts.opening_block_seconds, 0) as opening_block_seconds,
        coalesce(pre_epoch_parts.later_windows_seconds, 0) as later_windows_seconds,
        coalesce(runs.tail_seconds, 0) as final_tail_seconds,
        -- timestamps are whole microseconds, so the exact rest is too (0 where the parts cover the run)
        {{ runlens.whole_microseconds(
            'runs.wall_seconds - coalesce(pre_epoch_parts.opening_block_seconds, 0)'
            ~ ' - coalesce(pre_epoch_parts.later_windows_seconds, 0) - coalesce(runs.tail_seconds, 0)'
        ) }} as other_seconds,
        {{ runlens.build_started_at() }} as computed_at
    from runs
    left join pre_epoch_parts on runs.run_id = pre_epoch_parts.run_id
)

select * from final
