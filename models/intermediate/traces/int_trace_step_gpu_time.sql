-- Each profiled step's GPU time over its stretch of the timeline, split as HTA's temporal
-- breakdown splits a trace's, and the idle time before each of its GPU events by stream, as HTA's
-- idle time breakdown (def_gpu_time, def_idle_time in models/marts/steps/_steps__docs.md).
-- Grain: one row per trace file and profiled step with a GPU event.
with

windows as (
    select * from {{ ref('int_trace_step_windows') }}
),

kept_events as (
    select * from {{ ref('int_trace_events') }}
),

-- every GPU event of the window's trace, whichever step launched it, cut to the window
in_windows as (
    select
        windows.file_path,
        windows.step_label,
        {{ runlens.gpu_work_layer('kept_events.gpu_work_type') }} as own_layer,
        greatest(kept_events.start_us, windows.window_start_us) as start_us,
        least(kept_events.end_us, windows.window_end_us) as end_us
    from windows
    inner join kept_events
        on windows.file_path = kept_events.file_path
        and windows.window_end_us > kept_events.start_us
        and windows.window_start_us < kept_events.end_us
    where kept_events.is_gpu_event
),

-- the layers some GPU event of the trace has as its own: only those are merged
layers as (
    {{ runlens.present_gpu_layers('kept_events') }}
),

layered as (
    select
        in_windows.file_path,
        in_windows.step_label,
        layers.layer,
        in_windows.start_us,
        in_windows.end_us
    from in_windows
    inner join layers
        on in_windows.file_path = layers.file_path and in_windows.own_layer <= layers.layer
),

busy as (
    {{ runlens.merged_busy_time('layered', ['file_path', 'step_label', 'layer']) }}
),

split as (
    {{ runlens.gpu_time_split('busy', ['file_path', 'step_label']) }}
),

-- the gap before each of the step's events on its stream, from the stream's previous event
ordered_work as (
    select
        step_label,
        file_path,
        start_us,
        launch_start_us,
        lag(end_us) over (partition by file_path, stream order by start_us, event_number) as previous_end_us
    from kept_events
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
        where previous_end_us is not null and step_label is not null
    ) as gaps
    group by file_path, step_label
),

final as (
    select
        windows.file_path,
        windows.step_label,
        windows.window_end_us - windows.window_start_us as span_us,
        coalesce(split.busy_us, 0) as busy_us,
        windows.window_end_us - windows.window_start_us - coalesce(split.busy_us, 0) as idle_us,
        coalesce(split.compute_us, 0) as compute_us,
        coalesce(split.communication_us, 0) as communication_us,
        coalesce(split.memory_us, 0) as memory_us,
        coalesce(split.other_gpu_us, 0) as other_gpu_us,
        coalesce(idle.stream_idle_us, 0) as stream_idle_us,
        coalesce(idle.host_wait_us, 0) as host_wait_us,
        coalesce(idle.kernel_wait_us, 0) as kernel_wait_us,
        coalesce(idle.other_idle_us, 0) as other_idle_us
    from windows
    left join split
        on windows.file_path = split.file_path
        and windows.step_label = split.step_label
    left join idle
        on windows.file_path = idle.file_path
        and windows.step_label = idle.step_label
)

select * from final
