-- Wall-time statistics per collection and task over analyzed runs (def_statistics,
-- def_percentiles).
-- Grain: one row per collection and task that has at least one run.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null
),

final as (
    select
        collection,
        task,
        count(*) filter (where is_analyzed) as runs_analyzed,
        count(*) filter (where not is_analyzed) as runs_excluded,
        avg(wall_seconds) filter (where is_analyzed) as mean_wall_seconds,
        {{ runlens.median('wall_seconds') }} filter (where is_analyzed) as median_wall_seconds,
        {{ runlens.percentile('wall_seconds', 0.9) }} filter (where is_analyzed) as p90_wall_seconds,
        {{ runlens.percentile('wall_seconds', 0.95) }} filter (where is_analyzed) as p95_wall_seconds,
        min(wall_seconds) filter (where is_analyzed) as min_wall_seconds,
        max(wall_seconds) filter (where is_analyzed) as max_wall_seconds,
        avg(tail_seconds) filter (where is_analyzed) as mean_tail_seconds,
        avg(tail_share) filter (where is_analyzed) as mean_tail_share
    from runs
    group by collection, task
)

select * from final
