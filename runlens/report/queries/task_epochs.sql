-- Epochs per task of the collection (agg_task_epochs), slowest mean epoch first, in minutes.
-- Reads marts only.
select
    task,
    runs_with_epochs,
    median_epochs_per_run,
    mean_epoch_seconds / 60 as mean_epoch_minutes,
    p50_epoch_seconds / 60 as p50_epoch_minutes,
    p90_epoch_seconds / 60 as p90_epoch_minutes,
    mean_first_epoch_seconds / 60 as mean_first_epoch_minutes,
    mean_later_epoch_median_seconds / 60 as mean_later_epoch_median_minutes,
    mean_first_epoch_excess_seconds
from agg_task_epochs
where collection = $collection
order by mean_epoch_seconds desc, task asc
