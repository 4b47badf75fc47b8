-- Every run with a straggling rank, for the index: the largest share of wall time lost first.
-- Reads marts only.
select
    runs.run_id,
    runs.collection,
    runs.straggling_rank,
    runs.world_size,
    runs.lost_to_slowest_seconds,
    runs.lost_share
from fct_distributed_runs as runs
where runs.straggling_rank is not null and runs.collection is not null
order by runs.lost_share desc nulls last, runs.run_id asc
