-- Runs analyzed and runs left out of the statistics (fct_runs: one row per run).
select
    count(*) filter (where is_analyzed) as analyzed,
    count(*) filter (where not is_analyzed) as excluded
from fct_runs
