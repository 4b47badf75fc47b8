-- Each profiled step of each rank's trace: its wall time, the host's time in the DataLoader, its
-- stretch of the GPU's timeline split as HTA's temporal breakdown splits a trace's, and the GPU's
-- idle time before its events as HTA's idle time breakdown (def_profiled_steps, def_gpu_time,
-- def_idle_time, def_data_loading). NULL GPU figures for a step without GPU events (a CPU-only
-- trace). Grain: one row per trace file of a run and profiled step.
with

traces as (
    select * from {{ ref('int_trace_runs') }}
),

steps as (
    select * from {{ ref('int_trace_steps') }}
),

gpu_time as (
    select * from {{ ref('int_trace_step_gpu_time') }}
),

loading_spans as (
    select
        events.file_path,
        events.step_label,
        events.start_us,
        least(events.end_us, steps.end_us) as end_us
    from {{ ref('int_trace_events') }} as events
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
        gpu_time.file_path is not null as has_gpu_events,
        gpu_time.span_us / 1e6 as gpu_span_seconds,
        gpu_time.busy_us / 1e6 as gpu_busy_seconds,
        gpu_time.idle_us / 1e6 as idle_seconds,
        gpu_time.compute_us / 1e6 as compute_seconds,
        (gpu_time.busy_us - gpu_time.compute_us) / 1e6 as non_compute_seconds,
        gpu_time.communication_us / 1e6 as communication_seconds,
        gpu_time.memory_us / 1e6 as memory_seconds,
        gpu_time.other_gpu_us / 1e6 as other_gpu_seconds,
        gpu_time.idle_us / nullif(gpu_time.span_us, 0) as idle_share,
        gpu_time.compute_us / nullif(gpu_time.span_us, 0) as compute_share,
        (gpu_time.busy_us - gpu_time.compute_us) / nullif(gpu_time.span_us, 0) as non_compute_share,
        gpu_time.communication_us / nullif(gpu_time.span_us, 0) as communication_share,
        gpu_time.memory_us / nullif(gpu_time.span_us, 0) as memory_share,
        gpu_time.stream_idle_us / 1e6 as stream_idle_seconds,
        gpu_time.host_wait_us / 1e6 as host_wait_seconds,
        gpu_time.kernel_wait_us / 1e6 as kernel_wait_seconds,
        gpu_time.other_idle_us / 1e6 as other_idle_seconds,
        gpu_time.host_wait_us / nullif(gpu_time.stream_idle_us, 0) as host_wait_share,
        gpu_time.kernel_wait_us / nullif(gpu_time.stream_idle_us, 0) as kernel_wait_share,
        gpu_time.other_idle_us / nullif(gpu_time.stream_idle_us, 0) as other_idle_share
    from steps
    inner join traces
        on steps.file_path = traces.file_path
    inner join first_events
        on steps.file_path = first_events.file_path
    left join gpu_time
        on steps.file_path = gpu_time.file_path
        and steps.step_label = gpu_time.step_label
    left join loading
        on steps.file_path = loading.file_path
        and steps.step_label = loading.step_label
)

select * from final
