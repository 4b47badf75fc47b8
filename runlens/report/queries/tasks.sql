-- The collection's tasks with analyzed runs, slowest mean first (seconds). Reads marts only.
select
    task,
    runs_analyzed,
    runs_excluded,
    mean_wall_seconds,
    median_wall_seconds,
    p90_wall_seconds,
    p95_wall_seconds,
    mean_tail_seconds,
    mean_tail_share
from agg_task_runtime
where collection = $collection and runs_analyzed > 0
order by mean_wall_seconds desc, task asc
