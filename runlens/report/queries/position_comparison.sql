-- The pre-epoch interval positions of the collection against its baseline's. Reads marts only.
select
    interval_index,
    most_common_label as label,
    runs,
    baseline_runs,
    mean_seconds / 60 as mean_minutes,
    baseline_mean_seconds / 60 as baseline_mean_minutes,
    ratio
from cmp_interval_positions
where collection = $collection
order by interval_index
