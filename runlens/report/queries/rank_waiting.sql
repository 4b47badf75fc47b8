-- The collection's time lost to the slowest rank over its runs with several ranks. Reads marts only.
select
    distributed_runs,
    runs_with_straggling_rank,
    runs_with_stopped_ranks,
    wall_seconds,
    lost_to_slowest_seconds,
    lost_share
from agg_collection_rank_waiting
where collection = $collection
