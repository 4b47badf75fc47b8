-- The collection's span, run time, concurrency and GPU-hours (agg_collection_span). Reads marts only.
select
    first_started_at,
    span_ended_at,
    is_open,
    span_seconds / 3600 as span_hours,
    runs,
    run_seconds / 3600 as run_hours,
    peak_concurrent_runs,
    mean_concurrent_runs,
    longest_run_id,
    longest_run_seconds / 3600 as longest_run_hours,
    runs_with_gpus,
    gpu_hours
from agg_collection_span
where collection = $collection
