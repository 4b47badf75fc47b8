-- Tasks of the collection with analysed runs, slowest mean first, with the spread between the
-- slowest and the fastest task's means. Reads marts only.
select
    task,
    runs_analyzed,
    runs_excluded,
    mean_wall_seconds / 3600 as mean_wall_hours,
    median_wall_seconds / 3600 as median_wall_hours,
    mean_tail_seconds / 3600 as mean_tail_hours,
    mean_tail_share * 100 as mean_tail_share_percent,
    max(mean_wall_seconds) over () / nullif(min(mean_wall_seconds) over (), 0) as slowest_to_fastest_ratio
from agg_task_runtime
where collection = $collection and runs_analyzed > 0
order by mean_wall_seconds desc, task asc
