-- The most frequent reasons runs were left out, each with the first such run (in text order),
-- and how many reasons there are.
select
    exclusion_reason,
    count(*) as runs,
    min(run_id) as first_run_id,
    count(*) over () as reasons
from fct_runs
where not is_analyzed
group by exclusion_reason
order by runs desc, exclusion_reason asc
limit $top
