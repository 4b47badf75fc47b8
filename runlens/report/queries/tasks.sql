-- Tasks of the collection with analysed runs, slowest mean first, with the spread between the
-- slowest and the fastest task's means. Reads marts only.
select
    tasks.task,
    tasks.runs_analyzed,
    tasks.runs_excluded,
    tasks.mean_wall_seconds / 3600 as mean_wall_hours,
    tasks.median_wall_seconds / 3600 as median_wall_hours,
    tasks.p90_wall_seconds / 3600 as p90_wall_hours,
    tasks.p95_wall_seconds / 3600 as p95_wall_hours,
    tasks.mean_tail_seconds / 3600 as mean_tail_hours,
    tasks.mean_tail_share * 100 as mean_tail_share_percent,
    collections.slowest_to_fastest_task_ratio as slowest_to_fastest_ratio
from agg_task_runtime as tasks
inner join agg_collection_runtime as collections on tasks.collection = collections.collection
where tasks.collection = $collection and tasks.runs_analyzed > 0
order by tasks.mean_wall_seconds desc, tasks.task asc
