-- Profiler sections, largest share first, `unattributed` last (seconds, shares fractions).
-- Reads marts only.
select
    section,
    total_seconds,
    share_of_wall,
    mean_seconds_per_run,
    profiled_runs
from agg_profile_sections
where collection = $collection
order by section = 'unattributed' asc, share_of_wall desc, section asc
