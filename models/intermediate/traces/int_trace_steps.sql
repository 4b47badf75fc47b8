-- The profiled steps of each trace a run holds (def_profiled_steps in
-- models/marts/steps/_steps__docs.md): its `ProfilerStep#N` spans but the last, which the
-- profiler cuts short (every span when there is one); a trace without them is one step, the whole
-- trace. Grain: one row per trace file and step.
with

traces as (
    select * from {{ ref('int_trace_runs') }}
),

events as (
    select * from {{ ref('stg_trace_events') }}
),

annotated as (
    select
        events.file_path,
        events.event_name as step_label,
        {{ dbt.safe_cast(
            "regexp_replace(events.event_name, '^ProfilerStep#', '')", var('runlens_types')[target.type].bigint
        ) }} as step_number,
        events.start_us,
        events.end_us,
        count(*) over (partition by events.file_path) as trace_steps,
        row_number() over (partition by events.file_path order by events.start_us desc, events.event_number desc)
            as from_last
    from events
    where events.event_name like 'ProfilerStep#%' and not events.is_gpu_event and events.event_kind <> 'gpu_annotation'
),

whole_traces as (
    select
        events.file_path,
        'whole trace' as step_label,
        cast(null as {{ var('runlens_types')[target.type].bigint }}) as step_number,
        min(events.start_us) as start_us,
        max(events.end_us) as end_us
    from events
    inner join traces
        on events.file_path = traces.file_path
    left join annotated
        on events.file_path = annotated.file_path
    where annotated.file_path is null
    group by events.file_path
),

steps as (
    select
        file_path,
        step_label,
        step_number,
        start_us,
        end_us
    from annotated
    where trace_steps = 1 or from_last > 1
    union all
    select
        file_path,
        step_label,
        step_number,
        start_us,
        end_us
    from whole_traces
),

final as (
    select
        traces.run_id,
        traces.rank,
        steps.file_path,
        steps.step_label,
        steps.step_number,
        steps.start_us,
        steps.end_us,
        steps.step_label = 'whole trace' as is_whole_trace
    from steps
    inner join traces
        on steps.file_path = traces.file_path
)

select * from final
