-- depends_on: {{ ref('int_run_versions') }}, {{ ref('fct_runs') }}
-- How busy each part of a run's sessions kept its GPUs (def_goodput_part_utilization): the parts of
-- fct_run_sessions that lie in time (start-up, training kept, the final tail, training redone after
-- a restart or lost by a failed or abandoned run), each measured as an interval is
-- (def_utilization, macros/utilization.sql's stretch_utilization_ctes). Downtime and a stalled
-- run's silence are left out: no process sampled them.
-- Grain: one row per run with GPU samples, session_index and part (a part of 0 seconds aside).
-- Incremental by run, following the as-of time like the goodput marts: a refresh computes the runs
-- that changed and every incomplete run.
{{ config(**runlens.incremental_config('live_run')) }}
with

sessions as (
    select * from {{ ref('fct_run_sessions') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

sampled as (
    select * from {{ ref('int_run_sampled_gpus') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

part_bounds as (
    -- each part's start and end on the session's timeline (fct_run_sessions' columns)
    select
        sessions.run_id,
        sessions.session_index,
        sessions.started_at,
        sessions.training_started_at,
        sessions.tail_started_at,
        sessions.kept_until_at,
        sessions.active_ended_at,
        case
            when sessions.redone_seconds > 0 then 'redone'
            when sessions.lost_seconds > 0 then 'lost'
        end as disrupted_part
    from sessions
    inner join sampled on sessions.run_id = sampled.run_id
),

parts as (
    select
        run_id,
        session_index,
        'start_up' as part,
        started_at,
        training_started_at as active_ended_at
    from part_bounds
    union all
    select
        run_id,
        session_index,
        'training' as part,
        training_started_at as started_at,
        coalesce(tail_started_at, kept_until_at) as active_ended_at
    from part_bounds
    union all
    select
        run_id,
        session_index,
        'final_tail' as part,
        tail_started_at as started_at,
        kept_until_at as active_ended_at
    from part_bounds
    where tail_started_at is not null
    union all
    select
        run_id,
        session_index,
        disrupted_part as part,
        kept_until_at as started_at,
        active_ended_at
    from part_bounds
    where disrupted_part is not null
),

session_parts as (
    select
        run_id,
        session_index,
        part,
        started_at,
        active_ended_at,
        {{ runlens.seconds_between('started_at', 'active_ended_at') }} as active_seconds
    from parts
    where active_ended_at > started_at
),

{{ runlens.stretch_utilization_ctes('session_parts', ['session_index', 'part'], live=true) }},

final as (
    select
        session_parts.run_id,
        sessions.collection,
        sessions.task,
        session_parts.session_index,
        session_parts.part,
        session_parts.started_at,
        session_parts.active_ended_at as ended_at,
        stretch_utilization.active_seconds,
        stretch_utilization.gpus,
        stretch_utilization.gpus_source,
        stretch_utilization.gpu_samples,
        stretch_utilization.is_measured,
        stretch_utilization.sample_coverage,
        stretch_utilization.mean_gpu_utilization_pct,
        stretch_utilization.gpu_hours,
        stretch_utilization.measured_gpu_hours,
        stretch_utilization.idle_gpu_hours,
        {{ runlens.build_started_at() }} as computed_at
    from session_parts
    inner join stretch_utilization
        on session_parts.run_id = stretch_utilization.run_id
        and session_parts.session_index = stretch_utilization.session_index
        and session_parts.part = stretch_utilization.part
    inner join sessions
        on session_parts.run_id = sessions.run_id and session_parts.session_index = sessions.session_index
)

select * from final
