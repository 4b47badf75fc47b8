-- depends_on: {{ ref('int_run_versions') }}
-- Each analyzed run's pace in training steps (def_throughput): steps per active hour up to its last
-- pre-epoch checkpoint, and seconds per 100 steps between consecutive pre-epoch checkpoints, so
-- runs with different step counts compare fairly. Grain: one row per analyzed run with a
-- collection that has a pre-epoch checkpoint with a step.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and collection is not null and {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
    -- each interval carries its markers' event types and steps (int_run_intervals)
    select * from {{ ref('int_run_intervals') }}
    where is_pre_epoch and {{ runlens.is_run_to_compute('run_id') }}
),

stepped_intervals as (
    select
        intervals.run_id,
        intervals.seconds,
        intervals.is_downtime,
        intervals.interval_index + 1 as to_marker_index,
        intervals.from_event_type,
        intervals.from_step,
        intervals.to_event_type,
        intervals.to_step
    from intervals
    inner join runs on intervals.run_id = runs.run_id
),

last_checkpoints as (
    -- the last pre-epoch checkpoint that names a step, by position
    select
        run_id,
        max(to_marker_index) as last_checkpoint_index
    from stepped_intervals
    where to_event_type = 'checkpoint' and to_step is not null
    group by run_id
),

per_run as (
    select
        stepped_intervals.run_id,
        max(
            case
                when stepped_intervals.to_marker_index = last_checkpoints.last_checkpoint_index
                    then stepped_intervals.to_step
            end
        ) as last_checkpoint_step,
        sum(
            case
                when
                    stepped_intervals.to_marker_index <= last_checkpoints.last_checkpoint_index
                    and not stepped_intervals.is_downtime
                    then stepped_intervals.seconds
                else 0
            end
        ) as active_seconds_to_last_checkpoint,
        sum(
            case
                when
                    stepped_intervals.from_event_type = 'checkpoint'
                    and stepped_intervals.to_event_type = 'checkpoint'
                    and stepped_intervals.to_step > stepped_intervals.from_step
                    then stepped_intervals.seconds
                else 0
            end
        ) as checkpoint_window_seconds,
        sum(
            case
                when
                    stepped_intervals.from_event_type = 'checkpoint'
                    and stepped_intervals.to_event_type = 'checkpoint'
                    and stepped_intervals.to_step > stepped_intervals.from_step
                    then stepped_intervals.to_step - stepped_intervals.from_step
                else 0
            end
        ) as checkpoint_window_steps
    from stepped_intervals
    inner join last_checkpoints on stepped_intervals.run_id = last_checkpoints.run_id
    group by stepped_intervals.run_id
),

final as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        per_run.last_checkpoint_step,
        per_run.active_seconds_to_last_checkpoint,
        case
            when per_run.active_seconds_to_last_checkpoint > 0
                then
                    cast(per_run.last_checkpoint_step as {{ runlens.type_double() }}) * 3600
                    / per_run.active_seconds_to_last_checkpoint
        end as steps_per_active_hour,
        cast(per_run.checkpoint_window_steps as {{ dbt.type_bigint() }}) as checkpoint_window_steps,
        per_run.checkpoint_window_seconds,
        case
            when per_run.checkpoint_window_steps > 0
                then per_run.checkpoint_window_seconds * 100 / per_run.checkpoint_window_steps
        end as seconds_per_100_steps,
        {{ runlens.build_started_at() }} as computed_at
    from runs
    inner join per_run on runs.run_id = per_run.run_id
)

select * from final
