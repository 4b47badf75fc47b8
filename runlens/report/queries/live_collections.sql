-- The collections with a run still going, for the index (agg_collection_progress). Reads marts only.
select
    collection,
    runs_running,
    runs_stalled,
    last_finish_low_at,
    last_finish_at,
    last_finish_high_at
from agg_collection_progress
where is_live
order by collection
