-- The goodput breakdown of each task of the collection (agg_task_goodput). Reads marts only.
select
    task,
    bucket,
    seconds,
    share_of_wall,
    wall_seconds
from agg_task_goodput
where collection = $collection
order by task, bucket_order
