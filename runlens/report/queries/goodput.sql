-- The collection's goodput breakdown, bucket by bucket (agg_collection_goodput). Reads marts only.
select
    bucket,
    runs,
    runs_unmeasured,
    unmeasured_seconds,
    seconds,
    share_of_wall,
    gpu_hours,
    share_of_gpu_hours,
    total_gpu_hours,
    wall_seconds
from agg_collection_goodput
where collection = $collection
order by bucket_order
