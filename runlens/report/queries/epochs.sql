-- The collection's epochs (agg_collection_epochs), durations in minutes. Reads marts only.
select
    runs_with_epochs,
    runs_ending_at_final_epoch_end,
    epochs,
    mean_epochs_per_run,
    median_epochs_per_run,
    mean_epoch_seconds / 60 as mean_epoch_minutes,
    p50_epoch_seconds / 60 as p50_epoch_minutes,
    p90_epoch_seconds / 60 as p90_epoch_minutes,
    max_epoch_seconds / 60 as max_epoch_minutes,
    mean_first_epoch_seconds / 60 as mean_first_epoch_minutes,
    mean_later_epoch_median_seconds / 60 as mean_later_epoch_median_minutes,
    mean_first_epoch_excess_seconds,
    mean_first_epoch_ratio
from agg_collection_epochs
where collection = $collection
