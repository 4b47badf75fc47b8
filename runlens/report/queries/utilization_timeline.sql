-- The intervals of the collection's longest run (agg_collection_span.longest_run_id) with how busy
-- each kept its GPUs (fct_run_interval_utilization), for the utilization timeline chart; in run
-- order. Reads marts only; no rows when that run has no GPU samples.
select intervals.*
from fct_run_interval_utilization as intervals
inner join agg_collection_span as span
    on intervals.run_id = span.longest_run_id and intervals.collection = span.collection
where intervals.collection = $collection and intervals.gpu_hours is not null
order by intervals.interval_index asc
