-- Each analyzed run against the other runs of its task (def_stragglers): its wall time over the
-- median of its peers (the runs of its task with as many pre-epoch intervals: the same work), and
-- its most unusual pre-epoch interval by robust z-score against the same position in its task; a
-- straggler when its wall time is past its threshold, or an interval is both past the score's and
-- longer than usual by a share of the run's wall time that matters.
-- Incremental by task: a refresh computes again the runs of the tasks whose runs changed
-- (macros/run_groups.sql), every run's peers being in its task.
-- Grain: one row per analyzed run with a collection.
-- depends_on: {{ ref('int_run_groups') }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null and {{ runlens.is_group_to_compute('collection', 'task') }}
),

intervals as (
    -- positions line up whether or not a run restarted; a restart's downtime is none
    -- (def_interval_positions)
    select * from {{ ref('fct_run_intervals') }}
    where is_pre_epoch and not is_downtime
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

run_positions as (
    -- how many pre-epoch positions each run has: runs with as many did the same work
    select
        run_id,
        max(position_index) as positions
    from intervals
    group by run_id
),

peered as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.wall_seconds,
        coalesce(run_positions.positions, 0) as positions
    from runs
    left join run_positions on runs.run_id = run_positions.run_id
),

peer_walls as (
    select
        collection,
        task,
        positions,
        count(*) as peer_runs,
        {{ runlens.median('wall_seconds') }} as peer_median_wall_seconds
    from peered
    group by collection, task, positions
),

positioned as (
    select
        runs.collection,
        runs.task,
        intervals.run_id,
        intervals.position_index as interval_index,
        intervals.position_label as label,
        intervals.seconds,
        runs.wall_seconds as run_wall_seconds
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
        -- an outlier needs a score past straggler_robust_z and an excess over the position's
        -- median that matters to the run: straggler_min_excess_share of its wall time, and at
        -- least straggler_min_excess_seconds
        deviations.seconds - deviations.median_seconds >= greatest(
            {{ var('straggler_min_excess_share') }} * deviations.run_wall_seconds,
            {{ var('straggler_min_excess_seconds') }}
        ) as has_excess_that_matters,
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

flagged as (
    select
        run_id,
        interval_index,
        robust_z,
        coalesce(robust_z > {{ var('straggler_robust_z') }} and has_excess_that_matters, false) as is_outlier
    from scored
),

worst_positions as (
    -- each run's worst interval: its outlier with the highest robust z-score, else its highest
    -- score; ties to the lowest position: an aggregate, not a sort
    select
        run_id,
        {%- set worst = ['case when is_outlier then 1 else 0 end', 'robust_z', '-interval_index'] %}
        {{ runlens.arg_max('interval_index', worst) }} as interval_index,
        max(case when is_outlier then 1 else 0 end) = 1 as has_outlier_interval
    from flagged
    group by run_id
),

worst_intervals as (
    select
        worst_positions.run_id,
        worst_positions.interval_index,
        deviations.label,
        deviations.seconds,
        deviations.median_seconds,
        flagged.robust_z,
        worst_positions.has_outlier_interval
    from worst_positions
    inner join deviations
        on worst_positions.run_id = deviations.run_id
        and worst_positions.interval_index = deviations.interval_index
    inner join flagged
        on worst_positions.run_id = flagged.run_id
        and worst_positions.interval_index = flagged.interval_index
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
        peer_walls.peer_runs,
        peer_walls.peer_median_wall_seconds,
        case
            when
                peer_walls.peer_runs >= {{ var('straggler_min_task_runs') }}
                and peer_walls.peer_median_wall_seconds > 0
                then runs.wall_seconds / peer_walls.peer_median_wall_seconds
        end as wall_to_peer_median,
        worst_intervals.interval_index as worst_interval_index,
        worst_intervals.label as worst_interval_label,
        worst_intervals.seconds as worst_interval_seconds,
        worst_intervals.median_seconds as worst_interval_task_median_seconds,
        worst_intervals.robust_z as worst_interval_robust_z,
        coalesce(
            peer_walls.peer_runs >= {{ var('straggler_min_task_runs') }}
            and runs.wall_seconds > {{ var('straggler_wall_multiple') }} * peer_walls.peer_median_wall_seconds,
            false
        ) as is_slow_overall,
        coalesce(worst_intervals.has_outlier_interval, false) as has_outlier_interval
    from runs
    inner join task_walls
        on runs.collection = task_walls.collection
        and runs.task is not distinct from task_walls.task
    inner join peered on runs.run_id = peered.run_id
    inner join peer_walls
        on peered.collection = peer_walls.collection
        and peered.task is not distinct from peer_walls.task
        and peered.positions = peer_walls.positions
    left join worst_intervals on runs.run_id = worst_intervals.run_id
)

select
    *,
    is_slow_overall or has_outlier_interval as is_straggler,
    {{ runlens.build_started_at() }} as computed_at,
    {{ runlens.string_literal(runlens.settings_text(runlens.straggler_vars())) }} as computed_with
from final
