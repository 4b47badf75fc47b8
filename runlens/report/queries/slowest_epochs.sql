-- Epochs by mean duration, slowest first (seconds). Reads marts only.
select
    task,
    epoch_index,
    runs,
    mean_seconds
from agg_epoch_positions
where collection = $collection
order by mean_seconds desc, task asc, epoch_index asc
