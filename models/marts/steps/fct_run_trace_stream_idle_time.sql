-- The idle time of each GPU stream of a trace over HTA's window, split as HTA's idle time
-- breakdown splits it: host wait, kernel wait, other (def_idle_time).
-- Grain: one row per trace file of a run and stream.
with

stream_work as (
    select
        run_id,
        rank,
        file_path,
        stream,
        event_number,
        start_us,
        end_us,
        launch_start_us
    from {{ ref('int_trace_events') }}
    where is_stream_work
),

ordered as (
    select
        *,
        lag(end_us) over (partition by file_path, stream order by start_us, event_number) as previous_end_us
    from stream_work
),

gaps as (
    select
        run_id,
        rank,
        file_path,
        stream,
        start_us - previous_end_us as gap_us,
        {{ runlens.idle_category('start_us', 'previous_end_us', 'launch_start_us') }} as idle_category
    from ordered
    where previous_end_us is not null
),

streams as (
    select distinct
        run_id,
        rank,
        file_path,
        stream
    from stream_work
),

totals as (
    select
        file_path,
        stream,
        sum(case when idle_category = 'host_wait' then gap_us else 0 end) / 1e6 as host_wait_seconds,
        sum(case when idle_category = 'kernel_wait' then gap_us else 0 end) / 1e6 as kernel_wait_seconds,
        sum(case when idle_category = 'other' then gap_us else 0 end) / 1e6 as other_idle_seconds,
        sum(gap_us) / 1e6 as stream_idle_seconds
    from gaps
    group by file_path, stream
),

final as (
    select
        streams.run_id,
        streams.rank,
        streams.file_path,
        streams.stream,
        coalesce(totals.stream_idle_seconds, 0) as stream_idle_seconds,
        coalesce(totals.host_wait_seconds, 0) as host_wait_seconds,
        coalesce(totals.kernel_wait_seconds, 0) as kernel_wait_seconds,
        coalesce(totals.other_idle_seconds, 0) as other_idle_seconds,
        totals.host_wait_seconds / nullif(totals.stream_idle_seconds, 0) as host_wait_share,
        totals.kernel_wait_seconds / nullif(totals.stream_idle_seconds, 0) as kernel_wait_share,
        totals.other_idle_seconds / nullif(totals.stream_idle_seconds, 0) as other_idle_share
    from streams
    left join totals
        on streams.file_path = totals.file_path
        and streams.stream = totals.stream
)

select * from final
