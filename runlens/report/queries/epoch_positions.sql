-- Mean duration of each epoch per task (seconds). Reads marts only.
select
    task,
    epoch_index,
    runs,
    mean_seconds
from agg_epoch_positions
where collection = $collection
order by task asc, epoch_index asc
