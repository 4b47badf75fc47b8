-- The collection's runs with several ranks, the most time lost to the slowest rank (as a share of
-- wall time) first: every column of fct_run_rank_waiting, with the last marker of the lowest rank
-- that stopped early. Reads marts only.
select
    runs.*,
    stopped.last_marker_label as first_stopped_rank_last_marker,
    stopped.run_end_status as first_stopped_rank_status
from fct_run_rank_waiting as runs
left join fct_run_ranks as stopped
    on runs.run_id = stopped.run_id and runs.first_stopped_rank = stopped.rank
where runs.collection = $collection
order by runs.lost_share desc nulls last, runs.lost_to_slowest_seconds desc, runs.run_id asc
