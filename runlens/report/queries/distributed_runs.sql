-- The collection's runs with several ranks, the most time lost to the slowest rank (as a share of
-- wall time) first, with the last marker of the lowest rank that stopped early. Reads marts only.
select
    runs.run_id,
    runs.task,
    runs.world_size,
    runs.wall_seconds,
    runs.lost_to_slowest_seconds,
    runs.lost_share,
    runs.lost_basis,
    runs.straggling_rank,
    runs.straggling_rank_times,
    runs.straggler_points,
    runs.stopped_ranks,
    runs.first_stopped_rank,
    stopped.last_marker_label as first_stopped_rank_last_marker,
    stopped.run_end_status as first_stopped_rank_status
from fct_distributed_runs as runs
left join fct_run_ranks as stopped
    on runs.run_id = stopped.run_id and runs.first_stopped_rank = stopped.rank
where runs.collection = $collection
order by runs.lost_share desc nulls last, runs.lost_to_slowest_seconds desc, runs.run_id asc
