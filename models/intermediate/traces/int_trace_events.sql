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

-- the moment that places an event in a step: its own start, a launched GPU event's launch
step_keys as (
    select
        file_path,
        event_number,
        coalesce(launch_start_us, start_us) as key_us
    from kept
    where launch_start_us is not null or not is_launched_gpu_event
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

-- the steps and the keys on one timeline per trace: each key takes the start of the latest step
-- that began at or before it (the profiler's steps follow one another), a sort instead of a range
-- join of every event with every step
timeline as (
    select
        file_path,
        key_us as at_us,
        1 as is_key,
        event_number,
        cast(null as {{ var('runlens_types')[target.type].double }}) as step_start_us
    from step_keys
    union all
    select
        file_path,
        start_us as at_us,
        0 as is_key,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as event_number,
        start_us as step_start_us
    from timed_steps
    where same_start_order = 1
),

latest_step_starts as (
    select
        file_path,
        event_number,
        at_us,
        max(step_start_us) over (
            partition by file_path order by at_us, is_key rows unbounded preceding
        ) as step_start_us
    from timeline
    where is_key = 1 or step_start_us is not null
),

in_steps as (
    select
        latest_step_starts.file_path,
        latest_step_starts.event_number,
        timed_steps.step_label
    from latest_step_starts
    inner join timed_steps
        on latest_step_starts.file_path = timed_steps.file_path
        and latest_step_starts.step_start_us = timed_steps.start_us
        and timed_steps.same_start_order = 1
    where latest_step_starts.event_number is not null and latest_step_starts.at_us < timed_steps.end_us
    union all
    select
        kept.file_path,
        kept.event_number,
        steps.step_label
    from kept
    inner join steps
        on kept.file_path = steps.file_path
    where steps.is_whole_trace
),

final as (
    select
        kept.run_id,
        kept.rank,
        kept.file_path,
        kept.event_number,
        kept.category,
        kept.event_name,
        kept.event_kind,
        kept.start_us,
        kept.end_us,
        kept.stream,
        kept.correlation,
        kept.is_gpu_event,
        kept.is_launched_gpu_event,
        kept.gpu_work_type,
        kept.is_stream_work,
        kept.launch_start_us,
        in_steps.step_label
    from kept
    left join in_steps
        on kept.file_path = in_steps.file_path
        and kept.event_number = in_steps.event_number
)

select * from final
