-- Time by kind of interval, largest first (seconds, shares fractions). Reads marts only.
select
    interval_kind,
    intervals,
    zero_second_intervals,
    total_seconds,
    share_of_wall
from agg_collection_interval_kinds
where collection = $collection
order by total_seconds desc, interval_kind asc
