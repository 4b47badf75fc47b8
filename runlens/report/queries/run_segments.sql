-- The stretches each run of the collection ran, for the timeline chart: the collection's latest
-- $shown_runs runs by their first start (data.py, SHOWN_TIMELINE_RUNS: past that many the bars are
-- too thin to read), every column of fct_run_segments for each, with the run's status (fct_runs: a
-- failed run is marked where it ended), the live state of runs still going (fct_run_live_status)
-- and how many runs the collection's span holds (agg_collection_span.runs: those with a segment);
-- runs in order of their first start. Only the shown runs' segments are read. Reads marts only.
select
    segments.*,
    shown_runs.status as run_status,
    live_runs.live_status,
    spans.runs as collection_runs
from (
    select
        run_id,
        started_at,
        status
    from fct_runs
    where collection = $collection and started_at is not null
    order by started_at desc, run_id desc
    limit $shown_runs
) as shown_runs
inner join fct_run_segments as segments on shown_runs.run_id = segments.run_id
inner join agg_collection_span as spans on segments.collection = spans.collection
left join fct_run_live_status as live_runs on segments.run_id = live_runs.run_id
order by
    shown_runs.started_at asc,
    segments.run_id asc,
    segments.segment_index asc
