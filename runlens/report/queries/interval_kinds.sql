-- Time by kind of interval over the collection's analysed event-log runs
-- (agg_collection_interval_kinds), the largest first, in hours and percent. Reads marts only.
select
    interval_kind,
    intervals,
    zero_second_intervals,
    total_seconds / 3600 as total_hours,
    share_of_wall * 100 as share_percent
from agg_collection_interval_kinds
where collection = $collection
order by total_seconds desc, interval_kind asc
