-- Invariant: per-run figures are consistent: tail_share lies in [0, 1], active + downtime = wall,
-- no duration is negative, and an analysed run always has a wall time and a source.
-- Returns the runs that break it; in a build, among the runs it changed (macros/tests_on_changes.sql).
select
    run_id,
    wall_seconds,
    tail_share,
    active_seconds,
    downtime_seconds
from {{ ref('fct_runs') }}
where
    {{ runlens.changed_in_this_build('run_id') }}
    and (
        tail_share < 0
        or tail_share > 1
        or wall_seconds < 0
        or tail_seconds < 0
        or pre_tail_seconds < 0
        or abs(active_seconds + downtime_seconds - wall_seconds) > 0.000001
        or (is_analyzed and (wall_seconds is null or measurement_source is null))
    )
