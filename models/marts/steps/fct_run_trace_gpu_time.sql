-- Each trace's GPU time over HTA's window, split as HTA's temporal breakdown splits it (idle,
-- computation, non-computation: communication, memory, other) and its idle time as HTA's idle
-- time breakdown does, summed over the streams (def_gpu_time, def_idle_time). NULL GPU figures
-- for a trace without GPU events. Grain: one row per trace file of a run (a rank's trace).
with

traces as (
    select * from {{ ref('int_trace_runs') }}
),

device_events as (
    select
        file_path,
        {{ runlens.gpu_work_layer('gpu_work_type') }} as own_layer,
        start_us,
        end_us
    from {{ ref('int_trace_events') }}
    where is_gpu_event
),

-- the layers some GPU event of the trace has as its own: only those are merged
layers as (
    {{ runlens.present_gpu_layers(ref('int_trace_events')) }}
),

layered as (
    select
        device_events.file_path,
        layers.layer,
        device_events.start_us,
        device_events.end_us
    from device_events
    inner join layers
        on device_events.file_path = layers.file_path and device_events.own_layer <= layers.layer
),

busy as (
    {{ runlens.merged_busy_time('layered', ['file_path', 'layer']) }}
),

split as (
    {{ runlens.gpu_time_split('busy', ['file_path']) }}
),

idle_by_stream as (
    select
        file_path,
        sum(host_wait_seconds) as host_wait_seconds,
        sum(kernel_wait_seconds) as kernel_wait_seconds,
        sum(other_idle_seconds) as other_idle_seconds,
        sum(stream_idle_seconds) as stream_idle_seconds
    from {{ ref('fct_run_trace_stream_idle_time') }}
    group by file_path
),

final as (
    select
        traces.run_id,
        traces.rank,
        traces.file_path,
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
        idle_by_stream.stream_idle_seconds,
        idle_by_stream.host_wait_seconds,
        idle_by_stream.kernel_wait_seconds,
        idle_by_stream.other_idle_seconds,
        idle_by_stream.host_wait_seconds / nullif(idle_by_stream.stream_idle_seconds, 0) as host_wait_share,
        idle_by_stream.kernel_wait_seconds / nullif(idle_by_stream.stream_idle_seconds, 0) as kernel_wait_share,
        idle_by_stream.other_idle_seconds / nullif(idle_by_stream.stream_idle_seconds, 0) as other_idle_share
    from traces
    left join split
        on traces.file_path = split.file_path
    left join idle_by_stream
        on traces.file_path = idle_by_stream.file_path
)

select * from final
