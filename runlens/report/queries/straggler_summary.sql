-- How many of the collection's runs were scored against their tasks and flagged, and the
-- thresholds. Reads marts only.
select
    runs,
    runs_scored,
    stragglers,
    slow_overall,
    with_outlier_interval,
    wall_multiple_threshold,
    robust_z_threshold,
    min_excess_share,
    min_excess_seconds,
    min_task_runs
from agg_collection_stragglers
where collection = $collection
