-- Tasks that regressed against their baseline, worst first (seconds). Reads marts only.
select
    collection,
    baseline_collection,
    task,
    runs,
    baseline_runs,
    mean_wall_seconds,
    baseline_mean_wall_seconds,
    speedup
from cmp_task_runtime
where is_regression
order by collection asc, speedup asc, task asc
