-- The stretch of the GPU's timeline each profiled step owns (def_gpu_time in
-- models/marts/steps/_steps__docs.md): from where the previous step's GPU work ended (the first
-- step: its first GPU event's start) to where its own ended, so a trace's steps tile its GPU
-- timeline. Grain: one row per trace file and profiled step with a GPU event.
with

steps as (
    select * from {{ ref('int_trace_steps') }}
),

device_events as (
    select * from {{ ref('int_trace_events') }}
    where is_gpu_event and step_label is not null
),

step_work as (
    select
        steps.file_path,
        steps.step_label,
        steps.start_us as step_start_us,
        min(device_events.start_us) as first_start_us,
        max(device_events.end_us) as last_end_us
    from steps
    inner join device_events
        on steps.file_path = device_events.file_path
        and steps.step_label = device_events.step_label
    group by steps.file_path, steps.step_label, steps.start_us
),

ends as (
    select
        *,
        max(last_end_us) over (
            partition by file_path order by step_start_us rows unbounded preceding
        ) as window_end_us
    from step_work
),

final as (
    select
        file_path,
        step_label,
        coalesce(
            lag(window_end_us) over (partition by file_path order by step_start_us),
            first_start_us
        ) as window_start_us,
        window_end_us
    from ends
)

select * from final
