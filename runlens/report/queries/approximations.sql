-- Why some marker times of the collection are stand-ins (imported logs). Reads marts only.
select
    source_format,
    approximation,
    markers,
    runs
from agg_marker_approximations
where collection = $collection
order by markers desc, source_format asc, approximation asc
