-- Epochs per task, longest mean epoch first (seconds). Reads marts only.
select
    task,
    runs_with_epochs,
    median_epochs_per_run,
    mean_epoch_seconds,
    p50_epoch_seconds,
    p90_epoch_seconds,
    mean_first_epoch_seconds,
    mean_later_epoch_median_seconds,
    mean_first_epoch_excess_seconds
from agg_task_epochs
where collection = $collection
order by mean_epoch_seconds desc, task asc
