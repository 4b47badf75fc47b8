-- The collection's goodput buckets against its baseline's (cmp_collection_goodput), those with
-- time on either side, the largest change first. Reads marts only.
select
    bucket,
    share_of_wall,
    baseline_share_of_wall,
    share_change,
    seconds_per_run,
    baseline_seconds_per_run
from cmp_collection_goodput
where collection = $collection and (seconds_per_run > 0 or baseline_seconds_per_run > 0)
order by abs(share_change) desc, bucket_order
