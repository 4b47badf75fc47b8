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

in_steps as (
    select
        kept.file_path,
        kept.event_number,
        steps.step_label,
        row_number() over (partition by kept.file_path, kept.event_number order by steps.start_us) as step_order
    from kept
    inner join steps
        on kept.file_path = steps.file_path
        and (
            steps.is_whole_trace
            or (
                coalesce(kept.launch_start_us, kept.start_us) >= steps.start_us
                and coalesce(kept.launch_start_us, kept.start_us) < steps.end_us
                and (kept.launch_start_us is not null or not kept.is_launched_gpu_event)
            )
        )
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
        and in_steps.step_order = 1
)

select * from final
