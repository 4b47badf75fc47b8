-- Invariant: for every event-log run that ended, its intervals sum to its wall time, and the
-- time before the final epoch_end plus the final tail is the wall time too (to the microsecond).
-- Returns the runs that break it; in a build, among the runs it changed (macros/tests_on_changes.sql).
with

runs as (
    select * from {{ ref('fct_runs') }}
    where measurement_source = 'event_log' and {{ runlens.changed_in_this_build('run_id') }}
),

interval_sums as (
    select
        run_id,
        sum(seconds) as interval_seconds
    from {{ ref('fct_run_intervals') }}
    where {{ runlens.changed_in_this_build('run_id') }}
    group by run_id
)

select
    runs.run_id,
    runs.wall_seconds,
    interval_sums.interval_seconds,
    runs.pre_tail_seconds,
    runs.tail_seconds
from runs
left join interval_sums on runs.run_id = interval_sums.run_id
where
    abs(coalesce(interval_sums.interval_seconds, 0) - runs.wall_seconds) > 0.000001
    or abs(runs.pre_tail_seconds + runs.tail_seconds - runs.wall_seconds) > 0.000001
