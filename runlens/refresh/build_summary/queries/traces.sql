-- The profiler traces below the raw folder (fct_traces: one row per trace file): how many, how
-- many could not be read, and the runs of their own they make (def_trace_runs).
select
    count(*) as traces,
    count(*) filter (where read_error is not null) as unreadable,
    count(distinct run_id) filter (where is_own_run) as own_runs
from fct_traces
