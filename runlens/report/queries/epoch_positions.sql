-- Mean epoch duration at each epoch number per task (agg_epoch_positions), in minutes, for the
-- chart. Reads marts only.
select
    task,
    epoch_index,
    runs,
    mean_seconds / 60 as mean_minutes
from agg_epoch_positions
where collection = $collection
order by task asc, epoch_index asc
