-- Every column of fct_run_marker_arrivals: the arrival spread at each checkpoint and epoch end of
-- the collection's run that lost the most time to its slowest rank (the chart's run), in marker
-- order. Reads marts only.
select arrivals.*
from fct_run_marker_arrivals as arrivals
where
    arrivals.is_synchronizing
    and arrivals.marker_index is not null
    and arrivals.run_id = (
        select distributed_runs.run_id
        from fct_run_rank_waiting as distributed_runs
        where distributed_runs.collection = $collection
        order by distributed_runs.lost_to_slowest_seconds desc, distributed_runs.run_id asc
        limit 1
    )
order by arrivals.marker_index
