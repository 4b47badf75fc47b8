-- Where the difference in mean wall time from the baseline comes from, part by part, over all
-- tasks (def_difference_shares). Reads marts only.
select
    part,
    both_sides_have_markers,
    mean_seconds / 60 as mean_minutes,
    baseline_mean_seconds / 60 as baseline_mean_minutes,
    delta_seconds / 60 as delta_minutes,
    ratio,
    share_of_difference * 100 as share_percent
from cmp_wall_time_parts
where collection = $collection and scope = 'all_tasks'
order by part_order
