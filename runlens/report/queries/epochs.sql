-- The collection's epochs (seconds). Reads marts only.
select
    runs_with_epochs,
    runs_ending_at_final_epoch_end,
    epochs,
    mean_epochs_per_run,
    median_epochs_per_run,
    mean_epoch_seconds,
    p50_epoch_seconds,
    p90_epoch_seconds,
    max_epoch_seconds,
    mean_first_epoch_seconds,
    mean_later_epoch_median_seconds,
    mean_first_epoch_excess_seconds,
    mean_first_epoch_ratio
from agg_collection_epochs
where collection = $collection
