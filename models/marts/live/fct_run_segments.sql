-- depends_on: {{ ref('int_run_versions') }}
-- The stretches of time each run was running (def_run_segments): from its first run_start to its
-- end, less the downtime of each restart; a run still running or stalled runs to the as-of time,
-- an abandoned one to its last event. The timeline chart and the concurrency figures read them.
-- Grain: one row per run and segment_index. Incremental by run: a refresh computes the runs that
-- changed and every incomplete run (macros/run_versions.sql).
{{ config(**runlens.incremental_config('live_run')) }}
with

live_runs as (
    select * from {{ ref('fct_run_live_status') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
    where
        collection is not null
        and started_at is not null
        and exclusion_reason is distinct from 'clock_skew'
        and {{ runlens.is_run_to_compute_or_live('run_id') }}
),

restarted_sessions as (
    -- the sessions another one follows: the run was down from their last event to the next
    -- run_start (def_downtime)
    select * from {{ ref('int_run_sessions') }}
    where next_started_at is not null and {{ runlens.is_run_to_compute_or_live('run_id') }}
),

run_spans as (
    -- where a run's running ends: its final run_end; a run still running or stalled (it may come
    -- back, and holds what it ran on), the as-of time; an abandoned run or one the profiler
    -- measured, its last event
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.started_at,
        case
            when runs.ended_at is not null then runs.ended_at
            when live_runs.live_status in ('running', 'stalled') then live_runs.as_of_at
            else runs.last_event_at
        end as span_ended_at,
        coalesce(live_runs.live_status in ('running', 'stalled'), false) as is_open
    from runs
    left join live_runs on runs.run_id = live_runs.run_id
),

boundaries as (
    -- segment k runs from the k-th start (the first run_start, then each restart) to the k-th
    -- session's last event, or for the last one to the span's end
    select
        run_id,
        0 as boundary_index,
        cast(null as {{ var('runlens_types')[target.type].timestamp }}) as downtime_started_at,
        cast(null as {{ var('runlens_types')[target.type].timestamp }}) as downtime_ended_at
    from run_spans
    union all
    select
        run_id,
        session_index as boundary_index,
        last_event_at as downtime_started_at,
        next_started_at as downtime_ended_at
    from restarted_sessions
),

segments as (
    select
        boundaries.run_id,
        boundaries.boundary_index + 1 as segment_index,
        coalesce(boundaries.downtime_ended_at, run_spans.started_at) as started_at,
        coalesce(
            lead(boundaries.downtime_started_at) over (
                partition by boundaries.run_id order by boundaries.boundary_index
            ),
            run_spans.span_ended_at
        ) as ended_at,
        run_spans.collection,
        run_spans.task,
        run_spans.is_open,
        lead(boundaries.boundary_index) over (
            partition by boundaries.run_id order by boundaries.boundary_index
        ) is null as is_last
    from boundaries
    inner join run_spans on boundaries.run_id = run_spans.run_id
),

final as (
    select
        run_id,
        cast(segment_index as {{ dbt.type_bigint() }}) as segment_index,
        collection,
        task,
        started_at,
        ended_at,
        {{ runlens.seconds_between('started_at', 'ended_at') }} as seconds,
        is_open and is_last as is_open,
        {{ runlens.build_started_at() }} as computed_at
    from segments
)

select * from final
