-- The arrival spread at each checkpoint and epoch end of the collection's run that lost the most
-- time to its slowest rank (the chart's run), in marker order. Reads marts only.
with

chart_run as (
    select run_id
    from fct_distributed_runs
    where collection = $collection
    order by lost_to_slowest_seconds desc, run_id asc
    limit 1
)

select
    arrivals.run_id,
    arrivals.marker_label,
    arrivals.label_occurrence,
    arrivals.arrival_spread_seconds,
    arrivals.last_rank
from fct_run_marker_arrivals as arrivals
inner join chart_run on arrivals.run_id = chart_run.run_id
where arrivals.is_synchronizing and arrivals.marker_index is not null
order by arrivals.marker_index
