-- Where the difference in mean wall time comes from, part by part over all tasks (seconds;
-- speedup is baseline over collection, shares fractions). Reads marts only.
select
    part,
    both_sides_have_markers,
    mean_seconds,
    baseline_mean_seconds,
    delta_seconds,
    speedup,
    share_of_difference
from cmp_wall_time_parts
where collection = $collection and scope = 'all_tasks'
order by part_order
