-- The checkpoint-to-checkpoint stretches most runs have before their final epoch end (seconds).
-- Reads marts only.
select
    later_window_count as window_count,
    min_mean_seconds,
    max_mean_seconds,
    summed_mean_seconds
from agg_later_windows
where collection = $collection
