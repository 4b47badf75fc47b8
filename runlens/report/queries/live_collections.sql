-- The collections with a run running or stalled at the as-of time (for the index). Reads marts only.
select
    collection,
    runs_running,
    runs_stalled,
    runs_abandoned,
    last_finish_low_at,
    last_finish_at,
    last_finish_high_at
from agg_collection_progress
where is_live
order by collection
