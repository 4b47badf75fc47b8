-- Each profiled step of each rank's trace: its wall time, its GPU time split as HTA's temporal
-- breakdown splits a trace's, its GPU idle time as HTA's idle time breakdown, and the host's time
-- in the DataLoader (def_profiled_steps, def_gpu_time, def_idle_time, def_data_loading).
-- NULL GPU figures for a step without GPU events (a CPU-only trace).
-- Grain: one row per trace file of a run and profiled step.
with

traces as (
    select * from {{ ref('int_trace_runs') }}
),

steps as (
    select * from {{ ref('int_trace_steps') }}
),

events as (
    select * from {{ ref('int_trace_events') }}
    where step_label is not null
),

device_events as (
    select
        file_path,
        step_label,
        {{ runlens.gpu_work_layer('gpu_work_type') }} as own_layer,
        start_us,
        end_us
    from events
    where is_gpu_event
),

layers as (
    select 1 as layer
    union all
    select 2 as layer
    union all
    select 3 as layer
    union all
    select 4 as layer
),

layered as (
    select
        device_events.file_path,
        device_events.step_label,
        layers.layer,
        device_events.start_us,
        device_events.end_us
    from device_events
    inner join layers
        on device_events.own_layer <= layers.layer
),

busy as (
    {{ runlens.merged_busy_time('layered', ['file_path', 'step_label', 'layer']) }}
),

split as (
    {{ runlens.gpu_time_split('busy', ['file_path', 'step_label']) }}
),

ordered_work as (
    select
        file_path,
        step_label,
        start_us,
        launch_start_us,
        lag(end_us) over (partition by file_path, step_label, stream order by start_us, event_number)
            as previous_end_us
    from events
    where is_stream_work
),

idle as (
    select
        file_path,
        step_label,
        sum(start_us - previous_end_us) as stream_idle_us,
        sum(case when idle_category = 'host_wait' then start_us - previous_end_us else 0 end) as host_wait_us,
        sum(case when idle_category = 'kernel_wait' then start_us - previous_end_us else 0 end) as kernel_wait_us,
        sum(case when idle_category = 'other' then start_us - previous_end_us else 0 end) as other_idle_us
    from (
        select
            *,
            {{ runlens.idle_category('start_us', 'previous_end_us', 'launch_start_us') }} as idle_category
        from ordered_work
        where previous_end_us is not null
    ) as gaps
    group by file_path, step_label
),

loading_spans as (
    select
        events.file_path,
        events.step_label,
        events.start_us,
        least(events.end_us, steps.end_us) as end_us
    from events
    inner join steps
        on events.file_path = steps.file_path
        and events.step_label = steps.step_label
    where
        not events.is_gpu_event
        and events.event_name like 'enumerate(DataLoader)#%.__next__'
),

loading as (
    {{ runlens.merged_busy_time('loading_spans', ['file_path', 'step_label']) }}
),

first_events as (
    select
        file_path,
        min(start_us) as first_start_us
    from {{ ref('stg_trace_events') }}
    group by file_path
),

final as (
    select
        steps.run_id,
        traces.collection,
        traces.task,
        steps.rank,
        steps.file_path,
        steps.step_label,
        steps.step_number,
        steps.is_whole_trace,
        {{ runlens.add_seconds('traces.started_at', '(steps.start_us - first_events.first_start_us) / 1e6') }}
            as started_at,
        (steps.end_us - steps.start_us) / 1e6 as wall_seconds,
        coalesce(loading.busy_us, 0) / 1e6 as data_loading_seconds,
        coalesce(loading.busy_us, 0) / nullif(steps.end_us - steps.start_us, 0) as data_loading_share,
        split.file_path is not null as has_gpu_events,
        split.span_us / 1e6 as gpu_span_seconds,
        split.busy_us / 1e6 as gpu_busy_seconds,
        split.idle_us / 1e6 as idle_seconds,
        split.compute_us / 1e6 as compute_seconds,
        (split.busy_us - split.compute_us) / 1e6 as non_compute_seconds,
        split.communication_us / 1e6 as communication_seconds,
        split.memory_us / 1e6 as memory_seconds,
        split.other_gpu_us / 1e6 as other_gpu_seconds,
        split.idle_us / nullif(split.span_us, 0) as idle_share,
        split.compute_us / nullif(split.span_us, 0) as compute_share,
        (split.busy_us - split.compute_us) / nullif(split.span_us, 0) as non_compute_share,
        split.communication_us / nullif(split.span_us, 0) as communication_share,
        split.memory_us / nullif(split.span_us, 0) as memory_share,
        case when split.file_path is not null then coalesce(idle.stream_idle_us, 0) / 1e6 end as stream_idle_seconds,
        case when split.file_path is not null then coalesce(idle.host_wait_us, 0) / 1e6 end as host_wait_seconds,
        case when split.file_path is not null then coalesce(idle.kernel_wait_us, 0) / 1e6 end as kernel_wait_seconds,
        case when split.file_path is not null then coalesce(idle.other_idle_us, 0) / 1e6 end as other_idle_seconds,
        idle.host_wait_us / nullif(idle.stream_idle_us, 0) as host_wait_share,
        idle.kernel_wait_us / nullif(idle.stream_idle_us, 0) as kernel_wait_share,
        idle.other_idle_us / nullif(idle.stream_idle_us, 0) as other_idle_share
    from steps
    inner join traces
        on steps.file_path = traces.file_path
    inner join first_events
        on steps.file_path = first_events.file_path
    left join split
        on steps.file_path = split.file_path
        and steps.step_label = split.step_label
    left join idle
        on steps.file_path = idle.file_path
        and steps.step_label = idle.step_label
    left join loading
        on steps.file_path = loading.file_path
        and steps.step_label = loading.step_label
)

select * from final
