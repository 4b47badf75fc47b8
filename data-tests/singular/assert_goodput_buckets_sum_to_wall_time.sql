-- Invariant: every run's goodput buckets add up to its wall time (to the microsecond), and so do
-- every rank's (fct_run_rank_goodput); for a run the event log measured, that wall time is
-- fct_runs.wall_seconds.
-- Returns the runs that break it; in a build, among the rows it wrote (macros/tests_on_changes.sql).
{%- set buckets = runlens.goodput_buckets() %}
with

goodput as (
    select * from {{ ref('fct_run_goodput') }}
    where {{ runlens.changed_in_this_build('computed_at') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
),

rank_goodput as (
    select * from {{ ref('fct_run_rank_goodput') }}
),

summed as (
    select
        run_id,
        wall_seconds,
        {% for bucket in buckets %}
        {{ '    + ' if not loop.first }}{{ bucket }}_seconds{% endfor %} as bucket_seconds
    from goodput
    union all
    select
        run_id,
        wall_seconds,
        {% for bucket in buckets %}
        {{ '    + ' if not loop.first }}{{ bucket }}_seconds{% endfor %} as bucket_seconds
    from rank_goodput
)

select
    summed.run_id,
    summed.wall_seconds,
    summed.bucket_seconds,
    runs.wall_seconds as run_wall_seconds
from summed
inner join runs on summed.run_id = runs.run_id
where
    abs(summed.bucket_seconds - summed.wall_seconds) > 0.000001
    or (runs.measurement_source = 'event_log' and abs(runs.wall_seconds - summed.wall_seconds) > 0.000001)
