-- The collection's stragglers (def_stragglers), the slowest against their task's median first.
-- Reads marts only.
select
    run_id,
    task,
    wall_seconds / 3600 as wall_hours,
    wall_to_task_median,
    worst_interval_label,
    worst_interval_seconds / 60 as worst_interval_minutes,
    worst_interval_task_median_seconds / 60 as worst_interval_task_median_minutes,
    worst_interval_robust_z,
    is_slow_overall,
    has_outlier_interval
from fct_run_stragglers
where collection = $collection and is_straggler
order by wall_to_task_median desc nulls last, worst_interval_robust_z desc nulls last, run_id asc
