-- Why runs of the collection were left out of the statistics, with up to five run ids each.
-- Reads marts only.
select
    exclusion_reason,
    count(*) as runs,
    array_to_string(list_sort(list(run_id))[1:5], ', ') as example_run_ids
from fct_runs
where collection = $collection and not is_analyzed
group by exclusion_reason
order by runs desc, exclusion_reason asc
