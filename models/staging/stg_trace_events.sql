-- The complete events of the profiler traces (the source runlens_raw.trace_events), each with its
-- kind, its times in whole microseconds as HTA takes them and, for a GPU event, its kind of work
-- (def_trace_times, def_gpu_event_types in models/marts/steps/_steps__docs.md).
-- Grain: one row per trace file and event number.
with

events as (
    select * from {{ source('runlens_raw', 'trace_events') }}
),

kinds as (
    select
        file_path,
        event_number,
        cat as category,
        name as event_name,
        case
            when cat in ('kernel', 'Kernel') then 'kernel'
            when cat in ('gpu_memcpy', 'Memcpy') then 'memcpy'
            when cat in ('gpu_memset', 'Memset') then 'memset'
            when cat in ('cuda_runtime', 'Runtime', 'cuda_driver') then 'runtime'
            when cat in ('cpu_op', 'Operator') then 'cpu_op'
            when cat = 'user_annotation' then 'annotation'
            when cat = 'gpu_user_annotation' then 'gpu_annotation'
            else 'other'
        end as event_kind,
        ceil(ts) as start_us,
        floor(ts + dur) as end_us,
        stream,
        correlation,
        external_id,
        pid,
        tid
    from events
),

final as (
    select
        file_path,
        event_number,
        category,
        event_name,
        event_kind,
        start_us,
        end_us,
        stream,
        correlation,
        external_id,
        pid,
        tid,
        stream is not null as is_gpu_event,
        -- HTA's GPU kernel (trace_filter: stream and correlation >= 0, or a device-wide sync)
        coalesce(stream >= 0 and correlation >= 0, false)
        or event_name in ('Event Sync', 'Context Sync') as is_launched_gpu_event,
        case
            when stream is null then null
            when event_name like 'nccl%Kernel%' then 'communication'
            when event_name like 'Memcpy%' or event_name like 'Memset%' or event_name like 'dma%' then 'memory'
            when event_name like '%Memcpy%' or event_name like '%Sync%' then 'other'
            else 'computation'
        end as gpu_work_type,
        stream is not null
        and category in (
            'kernel', 'Kernel', 'gpu_memset', 'Memset', 'gpu_memcpy', 'Memcpy', 'mtia_ccp_events'
        ) as is_stream_work
    from kinds
)

select * from final
