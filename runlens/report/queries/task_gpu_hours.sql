-- GPU-hours per task of the collection (agg_task_gpu_hours). Reads marts only.
select
    task,
    runs,
    runs_with_gpus,
    gpu_hours
from agg_task_gpu_hours
where collection = $collection
order by task
