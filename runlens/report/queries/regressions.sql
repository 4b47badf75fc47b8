-- Tasks slower than in their collection's baseline past the regression threshold
-- (def_regressions). Reads marts only.
select
    collection,
    baseline_collection,
    task,
    runs,
    baseline_runs,
    mean_wall_seconds / 3600 as mean_wall_hours,
    baseline_mean_wall_seconds / 3600 as baseline_mean_wall_hours,
    speedup
from cmp_task_runtime
where is_regression
order by collection asc, speedup asc, task asc
