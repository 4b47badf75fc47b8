-- The collection's later pre-epoch windows (def_later_windows): how many, and the range and sum
-- of their mean durations in minutes. Reads marts only.
select
    later_window_count as window_count,
    min_mean_seconds / 60 as min_mean_minutes,
    max_mean_seconds / 60 as max_mean_minutes,
    summed_mean_seconds / 60 as summed_mean_minutes
from agg_later_windows
where collection = $collection
