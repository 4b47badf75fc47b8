-- How much of each run's productive training its GPUs sat idle, where the run's profiler traces
-- measured its steps (def_productive_gpu_idle): the productive bucket (def_goodput) times the
-- GPU's idle share in the profiled steps (def_gpu_time), without the wait for data that the
-- goodput already carved out of training as data loading.
-- Grain: one row per run with goodput and a profiled step with GPU events.
with

goodput as (
    select * from {{ ref('fct_run_goodput') }}
),

steps as (
    select * from {{ ref('fct_run_step_summaries') }}
    where has_gpu_events
),

joined as (
    select
        goodput.run_id,
        goodput.collection,
        goodput.task,
        goodput.gpus,
        goodput.wall_seconds,
        goodput.productive_seconds,
        goodput.data_loading_seconds as data_loading_bucket_seconds,
        steps.steps,
        steps.gpu_span_seconds as step_gpu_span_seconds,
        steps.idle_share * steps.gpu_span_seconds as step_idle_seconds,
        steps.data_loading_seconds as step_data_loading_seconds
    from goodput
    inner join steps on goodput.run_id = steps.run_id
),

counted_once as (
    -- a run whose profile carved data loading out of its training time already counts the GPU's
    -- wait for data there: that much of the steps' idle time leaves the share
    select
        *,
        case
            when data_loading_bucket_seconds > 0 then least(step_idle_seconds, step_data_loading_seconds)
            else 0
        end as idle_in_data_loading_seconds
    from joined
),

shares as (
    select
        *,
        (step_idle_seconds - idle_in_data_loading_seconds)
        / nullif(step_gpu_span_seconds - idle_in_data_loading_seconds, 0) as productive_gpu_idle_share
    from counted_once
),

final as (
    select
        run_id,
        collection,
        task,
        gpus,
        steps,
        wall_seconds,
        productive_seconds,
        data_loading_bucket_seconds > 0 as has_data_loading_bucket,
        productive_gpu_idle_share,
        productive_seconds * productive_gpu_idle_share as productive_gpu_idle_seconds,
        productive_seconds / nullif(wall_seconds, 0) as goodput,
        productive_seconds * (1 - productive_gpu_idle_share) / nullif(wall_seconds, 0) as gpu_busy_goodput,
        productive_seconds * productive_gpu_idle_share * gpus / 3600.0 as productive_idle_gpu_hours
    from shares
)

select * from final
