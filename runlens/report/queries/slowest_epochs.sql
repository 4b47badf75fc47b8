-- Every epoch number of every task (agg_epoch_positions), the slowest mean first, in minutes.
-- Reads marts only.
select
    task,
    epoch_index,
    runs,
    mean_seconds / 60 as mean_minutes
from agg_epoch_positions
where collection = $collection
order by mean_seconds desc, task asc, epoch_index asc
