-- Interval labels that are a run's longest, most often first. Reads marts only.
select
    longest_interval_label as label,
    runs,
    runs_with_intervals,
    mean_seconds / 60 as mean_minutes,
    mean_seconds_when_longest / 60 as mean_minutes_when_longest
from agg_longest_intervals
where collection = $collection
order by runs desc, longest_interval_label asc
