-- The collection's stragglers, slowest against its peers first: every column of
-- fct_run_stragglers, with the downtime between sessions their wall time holds (a restart's gap
-- is no interval position). Reads marts only.
select
    stragglers.*,
    runs.downtime_seconds
from fct_run_stragglers as stragglers
inner join fct_runs as runs on stragglers.run_id = runs.run_id
where stragglers.collection = $collection and stragglers.is_straggler
order by
    stragglers.wall_to_peer_median desc nulls last,
    stragglers.worst_interval_robust_z desc nulls last,
    stragglers.run_id asc
