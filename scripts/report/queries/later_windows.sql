-- The later pre-epoch windows (every position after the opening block that at least half of the
-- runs have): how many there are and the range of their mean durations. Reads marts only.
with

positions as (
    select * from agg_interval_positions
    where collection = $collection
),

opening as (
    select runs as runs_with_pre_epoch from positions
    where interval_index = 1
),

typical as (
    select positions.*
    from positions
    cross join opening
    where positions.interval_index > 1 and positions.runs * 2 >= opening.runs_with_pre_epoch
)

select
    count(*) as window_count,
    min(mean_seconds) / 60 as min_mean_minutes,
    max(mean_seconds) / 60 as max_mean_minutes,
    sum(mean_seconds) / 60 as summed_mean_minutes
from typical
having count(*) > 0
