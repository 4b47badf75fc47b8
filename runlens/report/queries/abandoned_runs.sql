-- The collection's abandoned runs, longest silent first (seconds). Reads marts only.
select
    run_id,
    task,
    last_marker_label,
    last_event_at,
    silent_seconds,
    abandon_threshold_seconds
from fct_live_runs
where collection = $collection and live_status = 'abandoned'
order by silent_seconds desc, run_id asc
