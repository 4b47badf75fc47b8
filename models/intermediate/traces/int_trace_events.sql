-- The events of each trace a run holds that the breakdowns read (def_analysed_events in
-- models/marts/steps/_steps__docs.md): HTA's window (with two or more `ProfilerStep` names in the
-- run, the CPU events before the trace's last step and the GPU work they launched; else every
-- event), each GPU event with the start of the call that launched it, and every event with the
-- profiled step it belongs to. Grain: one row per trace file and event number.
with

traces as (
    select * from {{ ref('int_trace_runs') }}
),

events as (
    select
        traces.run_id,
        traces.rank,
        source_events.*
    from {{ ref('stg_trace_events') }} as source_events
    inner join traces
        on source_events.file_path = traces.file_path
),

steps as (
    select * from {{ ref('int_trace_steps') }}
),

run_step_names as (
    select
        run_id,
        count(distinct event_name) as step_names
    from events
    where event_name like '%ProfilerStep%'
    group by run_id
),

last_steps as (
    select
        file_path,
        max(start_us) as last_step_start_us
    from events
    where event_name like '%ProfilerStep%' and not is_launched_gpu_event
    group by file_path
),

host_events as (
    select events.*
    from events
    left join run_step_names
        on events.run_id = run_step_names.run_id
    left join last_steps
        on events.file_path = last_steps.file_path
    where
        not events.is_launched_gpu_event
        and (
            coalesce(run_step_names.step_names, 0) < 2
            or last_steps.last_step_start_us is null
            or events.start_us < last_steps.last_step_start_us
        )
),

-- the host event of each correlation id (the launching call; the last one written, as HTA's join)
launches as (
    select
        file_path,
        correlation,
        start_us as launch_start_us,
        row_number() over (partition by file_path, correlation order by event_number desc) as latest
    from events
    where correlation is not null and not is_launched_gpu_event
),

kept_launches as (
    select distinct
        file_path,
        correlation
    from host_events
    where correlation is not null
),

device_events as (
    select
        events.*,
        launches.launch_start_us
    from events
    left join run_step_names
        on events.run_id = run_step_names.run_id
    left join kept_launches
        on events.file_path = kept_launches.file_path
        and events.correlation = kept_launches.correlation
    left join launches
        on events.file_path = launches.file_path
        and events.correlation = launches.correlation
        and launches.latest = 1
    where
        events.is_launched_gpu_event
        and (coalesce(run_step_names.step_names, 0) < 2 or kept_launches.file_path is not null)
),

kept as (
    select
        host_events.*,
        cast(null as {{ var('runlens_types')[target.type].double }}) as launch_start_us
    from host_events
    union all
    select * from device_events
),

timed_steps as (
    select
        file_path,
        start_us,
        end_us,
        step_label,
        row_number() over (partition by file_path, start_us order by end_us desc, step_label asc) as same_start_order
    from steps
    where not is_whole_trace
),

whole_trace_steps as (
    select
        file_path,
        step_label
    from steps
    where is_whole_trace
),

-- the events and the steps' starts on one timeline per trace, each event at the moment that
-- places it in a step (its own start; a launched GPU event's launch; none for a GPU event whose
-- launch is not known): each event takes the start of the latest step that began at or before it
-- (the profiler's steps follow one another), on one sort that carries the events' columns along,
-- instead of a range join of every event with every step or a join back to every event
timeline as (
    select
        run_id,
        rank,
        file_path,
        event_number,
        category,
        event_name,
        event_kind,
        start_us,
        end_us,
        stream,
        correlation,
        is_gpu_event,
        is_launched_gpu_event,
        gpu_work_type,
        is_stream_work,
        launch_start_us,
        case
            when launch_start_us is not null or not is_launched_gpu_event then coalesce(launch_start_us, start_us)
        end as at_us,
        1 as is_event,
        cast(null as {{ var('runlens_types')[target.type].double }}) as step_start_us
    from kept
    union all
    select
        cast(null as {{ var('runlens_types')[target.type].string }}) as run_id,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as rank,
        file_path,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as event_number,
        cast(null as {{ var('runlens_types')[target.type].string }}) as category,
        cast(null as {{ var('runlens_types')[target.type].string }}) as event_name,
        cast(null as {{ var('runlens_types')[target.type].string }}) as event_kind,
        cast(null as {{ var('runlens_types')[target.type].double }}) as start_us,
        cast(null as {{ var('runlens_types')[target.type].double }}) as end_us,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as stream,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as correlation,
        cast(null as {{ var('runlens_types')[target.type].boolean }}) as is_gpu_event,
        cast(null as {{ var('runlens_types')[target.type].boolean }}) as is_launched_gpu_event,
        cast(null as {{ var('runlens_types')[target.type].string }}) as gpu_work_type,
        cast(null as {{ var('runlens_types')[target.type].boolean }}) as is_stream_work,
        cast(null as {{ var('runlens_types')[target.type].double }}) as launch_start_us,
        start_us as at_us,
        0 as is_event,
        start_us as step_start_us
    from timed_steps
    where same_start_order = 1
),

placed as (
    select
        *,
        max(step_start_us) over (
            partition by file_path order by at_us, is_event rows unbounded preceding
        ) as latest_step_start_us
    from timeline
),

final as (
    select
        placed.run_id,
        placed.rank,
        placed.file_path,
        placed.event_number,
        placed.category,
        placed.event_name,
        placed.event_kind,
        placed.start_us,
        placed.end_us,
        placed.stream,
        placed.correlation,
        placed.is_gpu_event,
        placed.is_launched_gpu_event,
        placed.gpu_work_type,
        placed.is_stream_work,
        placed.launch_start_us,
        coalesce(
            case when placed.at_us < timed_steps.end_us then timed_steps.step_label end,
            whole_trace_steps.step_label
        ) as step_label
    from placed
    left join timed_steps
        on
        placed.file_path = timed_steps.file_path
        and placed.latest_step_start_us = timed_steps.start_us
        and timed_steps.same_start_order = 1
    left join whole_trace_steps
        on placed.file_path = whole_trace_steps.file_path
    where placed.is_event = 1
)

select * from final
