-- The collection's span, concurrency, longest run and GPU-hours (seconds). Reads marts only.
select
    first_started_at,
    span_ended_at,
    is_open,
    span_seconds,
    runs,
    run_seconds,
    peak_concurrent_runs,
    mean_concurrent_runs,
    longest_run_id,
    longest_run_seconds,
    is_longest_run_expected,
    runs_with_gpus,
    gpu_hours
from agg_collection_span
where collection = $collection
