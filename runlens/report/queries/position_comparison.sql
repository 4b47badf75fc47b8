-- The intervals before the final epoch end against the baseline's, aligned by label, in run
-- order (seconds). Reads marts only.
select
    label,
    position_order,
    runs,
    baseline_runs,
    mean_seconds,
    baseline_mean_seconds,
    delta_seconds,
    speedup,
    is_on_both_sides,
    is_held_by_few_runs,
    difference_rank
from cmp_interval_positions
where collection = $collection
order by position_order
