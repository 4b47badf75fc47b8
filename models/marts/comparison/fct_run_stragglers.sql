-- Each analyzed run against the other runs of its task (def_stragglers): its wall time over the
-- median of its peers (the runs of its task with as many pre-epoch intervals: the same work) and
-- its robust z-score among them, and its most unusual pre-epoch interval by robust z-score against
-- the same position in its task; a straggler when its wall time is past both thresholds (slow for
-- its task's own spread), or an interval is past the score's and longer than the run's own pace
-- gives it by a share of the run's wall time that matters.
-- Incremental by task: a refresh computes again the runs of the tasks whose runs changed
-- (macros/run_groups.sql), every run's peers being in its task.
-- Grain: one row per analyzed run with a collection.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config(
    'task', pre_hook="{{ runlens.delete_rows_of_changed_groups('task', computed_with=runlens.straggler_vars()) }}"
)) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null and {{ runlens.is_group_to_compute('collection', 'task') }}
),

intervals as {{ runlens.streamed_cte() }} (
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

peer_wall_deviations as (
    select
        peered.run_id,
        peered.collection,
        peered.task,
        peered.positions,
        peer_walls.peer_runs,
        peer_walls.peer_median_wall_seconds,
        abs(peered.wall_seconds - peer_walls.peer_median_wall_seconds) as absolute_deviation
    from peered
    inner join peer_walls
        on peered.collection = peer_walls.collection
        and peered.task is not distinct from peer_walls.task
        and peered.positions = peer_walls.positions
),

peer_wall_spreads as (
    select
        collection,
        task,
        positions,
        {{ runlens.median('absolute_deviation') }} as mad_wall_seconds
    from peer_wall_deviations
    group by collection, task, positions
),

wall_scores as (
    -- each run's peers: their median wall time and their spread (1.4826 x the MAD, floored as a
    -- position's is), which the wall's robust z-score is over
    select
        peer_wall_deviations.run_id,
        peer_wall_deviations.peer_runs,
        peer_wall_deviations.peer_median_wall_seconds,
        1.4826 * greatest(
            peer_wall_spreads.mad_wall_seconds,
            {{ var('straggler_mad_floor_share') }} * peer_wall_deviations.peer_median_wall_seconds,
            {{ var('straggler_mad_floor_seconds') }}
        ) as peer_spread_seconds
    from peer_wall_deviations
    inner join peer_wall_spreads
        on peer_wall_deviations.collection = peer_wall_spreads.collection
        and peer_wall_deviations.task is not distinct from peer_wall_spreads.task
        and peer_wall_deviations.positions = peer_wall_spreads.positions
),

positioned as {{ runlens.streamed_cte() }} (
    -- what the scores need of each interval (its label is read for the worst one alone); read
    -- twice (the positions' medians, the deviations), the join is done again rather than held:
    -- at 1M runs, holding it and the deviations spilled 4.4 GB past the memory limit
    select
        runs.collection,
        runs.task,
        intervals.run_id,
        intervals.position_index as interval_index,
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

interval_ratios as (
    -- each scored interval over its position's median
    select
        run_id,
        seconds / median_seconds as ratio_to_median
    from deviations
    where position_runs >= {{ var('straggler_min_task_runs') }} and median_seconds > 0
),

run_paces as (
    -- the run's own pace: the median of its intervals' ratios, which one long interval does not move
    select
        run_id,
        {{ runlens.median('ratio_to_median') }} as pace_to_task_median
    from interval_ratios
    group by run_id
),

scored as (
    select
        deviations.run_id,
        deviations.interval_index,
        deviations.seconds,
        deviations.median_seconds,
        -- an outlier needs a score past straggler_robust_z and an excess that matters to the run
        -- (straggler_min_excess_share of its wall time, and at least straggler_min_excess_seconds)
        -- over what its own pace gives the position: a run slow throughout is judged by its wall
        deviations.seconds - deviations.median_seconds * coalesce(run_paces.pace_to_task_median, 1) >= greatest(
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
    left join run_paces on deviations.run_id = run_paces.run_id
    where deviations.position_runs >= {{ var('straggler_min_task_runs') }}
),

flagged as (
    select
        run_id,
        interval_index,
        seconds,
        median_seconds,
        robust_z,
        coalesce(robust_z > {{ var('straggler_robust_z') }} and has_excess_that_matters, false) as is_outlier
    from scored
),

worst_positions as (
    -- each run's worst interval: its outlier with the highest robust z-score, else its highest
    -- score; ties to the lowest position: an aggregate, not a sort, each figure taken from that
    -- interval by the same keys (a run's positions differ, so they name one interval)
    select
        run_id,
        {%- set worst = ['case when is_outlier then 1 else 0 end', 'robust_z', '-interval_index'] %}
        {{ runlens.arg_max('interval_index', worst) }} as interval_index,
        {{ runlens.arg_max('seconds', worst) }} as seconds,
        {{ runlens.arg_max('median_seconds', worst) }} as median_seconds,
        {{ runlens.arg_max('robust_z', worst) }} as robust_z,
        max(case when is_outlier then 1 else 0 end) = 1 as has_outlier_interval
    from flagged
    group by run_id
),

worst_intervals as (
    select
        worst_positions.run_id,
        worst_positions.interval_index,
        intervals.position_label as label,
        worst_positions.seconds,
        worst_positions.median_seconds,
        worst_positions.robust_z,
        worst_positions.has_outlier_interval
    from worst_positions
    inner join intervals
        on worst_positions.run_id = intervals.run_id
        and worst_positions.interval_index = intervals.position_index
),

run_figures as (
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
        wall_scores.peer_runs,
        wall_scores.peer_median_wall_seconds,
        case
            when
                wall_scores.peer_runs >= {{ var('straggler_min_task_runs') }}
                and wall_scores.peer_median_wall_seconds > 0
                then runs.wall_seconds / wall_scores.peer_median_wall_seconds
        end as wall_to_peer_median,
        case
            when wall_scores.peer_runs >= {{ var('straggler_min_task_runs') }}
                then (runs.wall_seconds - wall_scores.peer_median_wall_seconds) / wall_scores.peer_spread_seconds
        end as wall_robust_z,
        run_paces.pace_to_task_median,
        worst_intervals.interval_index as worst_interval_index,
        worst_intervals.label as worst_interval_label,
        worst_intervals.seconds as worst_interval_seconds,
        worst_intervals.median_seconds as worst_interval_task_median_seconds,
        worst_intervals.robust_z as worst_interval_robust_z,
        -- slow overall: past straggler_wall_multiple x its peers' median, and far outside their
        -- spread (its wall's robust z-score past straggler_robust_z)
        coalesce(
            wall_scores.peer_runs >= {{ var('straggler_min_task_runs') }}
            and runs.wall_seconds > {{ var('straggler_wall_multiple') }} * wall_scores.peer_median_wall_seconds
            and runs.wall_seconds - wall_scores.peer_median_wall_seconds
            > {{ var('straggler_robust_z') }} * wall_scores.peer_spread_seconds,
            false
        ) as is_slow_overall,
        coalesce(worst_intervals.has_outlier_interval, false) as has_outlier_interval
    from runs
    inner join task_walls
        on runs.collection = task_walls.collection
        and runs.task is not distinct from task_walls.task
    inner join wall_scores on runs.run_id = wall_scores.run_id
    left join run_paces on runs.run_id = run_paces.run_id
    left join worst_intervals on runs.run_id = worst_intervals.run_id
),

final as (
    select
        *,
        is_slow_overall or has_outlier_interval as is_straggler,
        {{ runlens.build_started_at() }} as computed_at,
        {{ runlens.string_literal(runlens.settings_text(runlens.straggler_vars())) }} as computed_with
    from run_figures
)

select * from final
