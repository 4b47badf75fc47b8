-- Which interval is the longest in how many runs, most often first (seconds). Reads marts only.
select
    longest_interval_label as label,
    runs,
    runs_with_intervals,
    mean_seconds,
    mean_seconds_when_longest
from agg_longest_intervals
where collection = $collection
order by runs desc, longest_interval_label asc
