-- Runs with events but no run_start, which no profile shows (for the index). Reads marts only.
select
    run_id,
    file_path,
    files,
    events,
    misspelt_as,
    misspelt_at
from fct_unstarted_runs
order by file_path asc, run_id asc
