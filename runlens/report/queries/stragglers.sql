-- The collection's stragglers, slowest against its task first, with whether the interval that
-- made a run stand out was the downtime before a restart (seconds). Reads marts only.
select
    stragglers.run_id,
    stragglers.task,
    stragglers.wall_seconds,
    stragglers.wall_to_task_median,
    stragglers.worst_interval_label,
    stragglers.worst_interval_seconds,
    stragglers.worst_interval_task_median_seconds,
    stragglers.worst_interval_robust_z,
    coalesce(intervals.is_downtime, false) as is_worst_interval_downtime,
    stragglers.is_slow_overall,
    stragglers.has_outlier_interval
from fct_run_stragglers as stragglers
left join fct_run_intervals as intervals
    on stragglers.run_id = intervals.run_id and stragglers.worst_interval_index = intervals.interval_index
where stragglers.collection = $collection and stragglers.is_straggler
order by
    stragglers.wall_to_task_median desc nulls last,
    stragglers.worst_interval_robust_z desc nulls last,
    stragglers.run_id asc
