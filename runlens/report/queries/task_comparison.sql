-- Per task against the baseline, slowest against it first (seconds; speedup is baseline over
-- collection). Reads marts only.
select
    task,
    runs,
    baseline_runs,
    mean_wall_seconds,
    baseline_mean_wall_seconds,
    speedup,
    is_regression
from cmp_task_runtime
where collection = $collection
order by speedup asc nulls last, task asc
