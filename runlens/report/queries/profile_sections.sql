-- Profiler sections of the collection, largest share first, `unattributed` last. Reads marts only.
select
    section,
    total_seconds / 3600 as total_hours,
    share_of_wall * 100 as share_percent,
    mean_seconds_per_run / 3600 as mean_hours_per_run,
    profiled_runs
from agg_profile_sections
where collection = $collection
order by section = 'unattributed' asc, share_of_wall desc, section asc
