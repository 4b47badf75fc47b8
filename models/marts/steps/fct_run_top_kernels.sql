-- The GPU events that took the most time in each run, over all its ranks' traces in HTA's window
-- (def_top_kernels): at most the dbt var top_kernels_per_run per run, the longest total first.
-- Grain: one row per run and GPU event name among its longest.
with

device_events as (
    select * from {{ ref('int_trace_events') }}
    where is_gpu_event
),

by_name as (
    select
        run_id,
        event_name as kernel_name,
        min(gpu_work_type) as gpu_work_type,
        count(*) as calls,
        sum(end_us - start_us) as total_us
    from device_events
    group by run_id, event_name
),

ranked as (
    select
        *,
        sum(total_us) over (partition by run_id) as run_total_us,
        row_number() over (partition by run_id order by total_us desc, kernel_name asc) as position
    from by_name
),

runs as (
    select distinct
        run_id,
        collection,
        task
    from {{ ref('int_trace_runs') }}
),

final as (
    select
        ranked.run_id,
        runs.collection,
        runs.task,
        cast(ranked.position as {{ var('runlens_types')[target.type].bigint }}) as position,
        ranked.kernel_name,
        ranked.gpu_work_type,
        ranked.calls,
        ranked.total_us / 1e6 as total_seconds,
        ranked.total_us / ranked.calls as mean_microseconds,
        ranked.total_us / nullif(ranked.run_total_us, 0) as share_of_gpu_event_time
    from ranked
    inner join runs
        on ranked.run_id = runs.run_id
    where ranked.position <= {{ var('top_kernels_per_run') }}
)

select * from final
