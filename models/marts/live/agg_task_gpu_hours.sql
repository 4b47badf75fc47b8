-- GPU-hours per task of a collection (def_gpu_hours): known only when every run of the task
-- names its GPUs. Grain: one row per collection and task.
with

run_gpu_hours as (
    select * from {{ ref('fct_run_gpu_hours') }}
),

final as (
    select
        collection,
        task,
        count(*) as runs,
        count(gpus) as runs_with_gpus,
        case when count(gpus) = count(*) then sum(gpu_hours) end as gpu_hours
    from run_gpu_hours
    group by collection, task
)

select * from final
