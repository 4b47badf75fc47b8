-- Each analysed run against the other runs of its task (def_stragglers): its wall time over the
-- task's median, and its most unusual pre-epoch interval by robust z-score against the same
-- position in its task; a straggler when either is past its threshold.
-- Grain: one row per analysed run with a collection.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch
),

task_walls as (
    select
        collection,
        task,
        count(*) as task_runs,
        {{ runlens.median('wall_seconds') }} as task_median_wall_seconds
    from runs
    group by collection, task
),

positioned as (
    select
        runs.collection,
        runs.task,
        intervals.run_id,
        intervals.interval_index,
        intervals.label,
        intervals.seconds
    from intervals
    inner join runs on intervals.run_id = runs.run_id
),

position_medians as (
    select
        collection,
        task,
        interval_index,
        count(*) as position_runs,
        {{ runlens.median('seconds') }} as median_seconds
    from positioned
    group by collection, task, interval_index
),

deviations as (
    select
        positioned.*,
        position_medians.position_runs,
        position_medians.median_seconds,
        abs(positioned.seconds - position_medians.median_seconds) as absolute_deviation
    from positioned
    inner join position_medians
        on positioned.collection = position_medians.collection
        and positioned.task is not distinct from position_medians.task
        and positioned.interval_index = position_medians.interval_index
),

position_spreads as (
    select
        collection,
        task,
        interval_index,
        {{ runlens.median('absolute_deviation') }} as mad_seconds
    from deviations
    group by collection, task, interval_index
),

scored as (
    select
        deviations.run_id,
        deviations.interval_index,
        deviations.label,
        deviations.seconds,
        deviations.median_seconds,
        position_spreads.mad_seconds,
        (deviations.seconds - deviations.median_seconds) / (
            1.4826 * greatest(
                position_spreads.mad_seconds,
                {{ var('straggler_mad_floor_share') }} * deviations.median_seconds,
                {{ var('straggler_mad_floor_seconds') }}
            )
        ) as robust_z
    from deviations
    inner join position_spreads
        on deviations.collection = position_spreads.collection
        and deviations.task is not distinct from position_spreads.task
        and deviations.interval_index = position_spreads.interval_index
    where deviations.position_runs >= {{ var('straggler_min_task_runs') }}
),

worst_intervals as (
    -- each run's highest robust z-score, ties to the lowest interval number: an aggregate, not a sort
    {%- set worst = ['robust_z', '-interval_index'] %}
    select
        run_id,
        {{ runlens.arg_max('interval_index', worst) }} as interval_index,
        {{ runlens.arg_max('label', worst) }} as label,
        {{ runlens.arg_max('seconds', worst) }} as seconds,
        {{ runlens.arg_max('median_seconds', worst) }} as median_seconds,
        max(robust_z) as robust_z
    from scored
    group by run_id
),

final as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.wall_seconds,
        task_walls.task_runs,
        task_walls.task_median_wall_seconds,
        case
            when
                task_walls.task_runs >= {{ var('straggler_min_task_runs') }}
                and task_walls.task_median_wall_seconds > 0
                then runs.wall_seconds / task_walls.task_median_wall_seconds
        end as wall_to_task_median,
        worst_intervals.interval_index as worst_interval_index,
        worst_intervals.label as worst_interval_label,
        worst_intervals.seconds as worst_interval_seconds,
        worst_intervals.median_seconds as worst_interval_task_median_seconds,
        worst_intervals.robust_z as worst_interval_robust_z,
        coalesce(
            task_walls.task_runs >= {{ var('straggler_min_task_runs') }}
            and runs.wall_seconds > {{ var('straggler_wall_multiple') }} * task_walls.task_median_wall_seconds,
            false
        ) as is_slow_overall,
        coalesce(worst_intervals.robust_z > {{ var('straggler_robust_z') }}, false) as has_outlier_interval
    from runs
    inner join task_walls
        on runs.collection = task_walls.collection
        and runs.task is not distinct from task_walls.task
    left join worst_intervals on runs.run_id = worst_intervals.run_id
)

select
    *,
    is_slow_overall or has_outlier_interval as is_straggler
from final
