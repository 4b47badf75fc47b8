-- The sweep at the as-of time (agg_collection_progress): runs by state and the likely finish of
-- its last running run. Reads marts only.
select
    as_of_at,
    is_live,
    runs_completed,
    runs_failed,
    runs_running,
    runs_stalled,
    last_finish_low_at,
    last_finish_at,
    last_finish_high_at,
    spent_share * 100 as spent_percent
from agg_collection_progress
where collection = $collection
