-- The stretches each run of the collection ran: every column of fct_run_segments, for the
-- timeline chart, with the run's status (fct_runs: a failed run is marked where it ended) and the
-- live state of runs still going (fct_run_live_status); runs in order of their first start. Reads
-- marts only.
select
    segments.*,
    runs.status as run_status,
    live_runs.live_status
from fct_run_segments as segments
inner join fct_runs as runs on segments.run_id = runs.run_id
left join fct_run_live_status as live_runs on segments.run_id = live_runs.run_id
where segments.collection = $collection
order by
    runs.started_at asc,
    segments.run_id asc,
    segments.segment_index asc
