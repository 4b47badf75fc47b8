-- Throughput per collection and task over its runs' figures (def_throughput): the means of the
-- per-run steps per active hour and seconds per 100 steps. Grain: one row per collection and task
-- with at least one run in fct_run_throughput.
with

throughput as (
    select * from {{ ref('fct_run_throughput') }}
),

final as (
    select
        collection,
        task,
        count(*) as runs,
        avg(steps_per_active_hour) as mean_steps_per_active_hour,
        avg(seconds_per_100_steps) as mean_seconds_per_100_steps
    from throughput
    group by collection, task
)

select * from final
