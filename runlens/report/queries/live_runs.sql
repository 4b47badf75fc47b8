-- The collection's running and stalled runs: stalled first, then by estimated finish (seconds).
-- Abandoned runs are counted apart (abandoned_runs.sql). Reads marts only.
select
    run_id,
    task,
    live_status,
    last_marker_label,
    elapsed_seconds,
    silent_seconds,
    stall_threshold_seconds,
    peer_set,
    peer_runs,
    estimated_finish_low_at,
    estimated_finish_at,
    estimated_finish_high_at
from fct_live_runs
where collection = $collection and live_status in ('running', 'stalled')
order by
    live_status desc,  -- 'stalled' before 'running'
    estimated_finish_at asc nulls last,
    run_id asc
