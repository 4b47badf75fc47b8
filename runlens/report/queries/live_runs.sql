-- The collection's live runs (fct_live_runs): stalled runs first, then running runs by their
-- estimated finish. Reads marts only.
select
    run_id,
    task,
    live_status,
    last_marker_label,
    elapsed_seconds / 3600 as elapsed_hours,
    silent_seconds / 60 as silent_minutes,
    peer_set,
    peer_runs,
    estimated_finish_low_at,
    estimated_finish_at,
    estimated_finish_high_at
from fct_live_runs
where collection = $collection
order by
    live_status desc,  -- 'stalled' before 'running'
    estimated_finish_at asc nulls last,
    run_id asc
