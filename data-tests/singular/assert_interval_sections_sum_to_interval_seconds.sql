-- Invariant: what an interval was spent on (fct_run_interval_sections: its sections, the profiled
-- time in no section and the time no profile covers) adds up to the interval's seconds (to the
-- millisecond: each row is rounded to the microsecond), and only profiled runs' intervals that are
-- not downtime have rows.
-- Returns the intervals that break it; in a build, among the rows it wrote (macros/tests_on_changes.sql).
with

sections as (
    select * from {{ ref('fct_run_interval_sections') }}
    where {{ runlens.changed_in_this_build('computed_at') }}
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
),

summed as (
    select
        run_id,
        interval_index,
        sum(seconds) as section_seconds
    from sections
    group by run_id, interval_index
)

select
    summed.run_id,
    summed.interval_index,
    summed.section_seconds,
    intervals.seconds as interval_seconds
from summed
left join intervals
    on summed.run_id = intervals.run_id and summed.interval_index = intervals.interval_index
where
    intervals.run_id is null
    or intervals.is_downtime
    or abs(summed.section_seconds - intervals.seconds) > 0.001
