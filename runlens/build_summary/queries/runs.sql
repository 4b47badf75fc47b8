-- Runs analysed and runs left out of the statistics (fct_runs: one row per run).
select
    count(*) filter (where is_analyzed) as analysed,
    count(*) filter (where not is_analyzed) as excluded
from fct_runs
