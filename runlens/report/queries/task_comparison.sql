-- Per-task comparison with the baseline. Reads marts only.
select
    task,
    runs,
    baseline_runs,
    mean_wall_seconds / 3600 as mean_wall_hours,
    baseline_mean_wall_seconds / 3600 as baseline_mean_wall_hours,
    speedup,
    is_regression
from cmp_task_runtime
where collection = $collection
order by task
