-- Each collection's productive training time that its GPUs sat idle, over the runs whose profiler
-- traces measured their steps (def_productive_gpu_idle): sums of fct_run_productive_gpu_idle.
-- Grain: one row per collection with a run in fct_run_productive_gpu_idle.
with

runs as (
    select * from {{ ref('fct_run_productive_gpu_idle') }}
    where collection is not null
),

final as (
    select
        collection,
        count(*) as runs,
        cast(sum(steps) as {{ dbt.type_bigint() }}) as steps,
        sum(wall_seconds) as wall_seconds,
        sum(productive_seconds) as productive_seconds,
        sum(productive_gpu_idle_seconds) as productive_gpu_idle_seconds,
        sum(productive_gpu_idle_seconds) / nullif(sum(productive_seconds), 0) as productive_gpu_idle_share,
        sum(productive_seconds) / nullif(sum(wall_seconds), 0) as goodput,
        (sum(productive_seconds) - sum(productive_gpu_idle_seconds)) / nullif(sum(wall_seconds), 0)
            as gpu_busy_goodput,
        case
            when count(gpus) = count(*) then sum(productive_idle_gpu_hours)
        end as productive_idle_gpu_hours
    from runs
    group by collection
)

select * from final
