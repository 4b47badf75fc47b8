-- Why runs of the collection were left out of the statistics, with up to five run ids each.
-- Reads marts only.
select
    exclusion_reason,
    runs,
    example_run_ids
from agg_excluded_runs
where collection = $collection
order by runs desc, exclusion_reason asc
