-- The collection's sweep at the as-of time. Reads marts only.
select
    as_of_at,
    is_live,
    runs_completed,
    runs_failed,
    runs_running,
    runs_stalled,
    runs_abandoned,
    last_finish_low_at,
    last_finish_at,
    last_finish_high_at,
    spent_share
from agg_collection_progress
where collection = $collection
