-- The GPU time of each task's profiled steps split into its parts, one row a part: computation,
-- communication, memory, other and idle, each over the steps' summed GPU span (def_gpu_time,
-- def_step_summaries), so that a page can give the split largest first. Tasks whose steps hold no
-- GPU event (CPU-only traces) have no rows: they have no GPU to split.
-- Grain: one row per collection, task with a GPU event in a profiled step, and part.
with

steps as (
    select * from {{ ref('fct_run_steps') }}
    where has_gpu_events and collection is not null
),

sums as (
    select
        collection,
        task,
        sum(gpu_span_seconds) as gpu_span_seconds,
        sum(compute_seconds) as computation_seconds,
        sum(communication_seconds) as communication_seconds,
        sum(memory_seconds) as memory_seconds,
        sum(other_gpu_seconds) as other_seconds,
        sum(idle_seconds) as idle_seconds
    from steps
    group by collection, task
),

part_names as (
    select 'computation' as part
    union all
    select 'communication' as part
    union all
    select 'memory' as part
    union all
    select 'other' as part
    union all
    select 'idle' as part
),

parts as (
    select
        sums.collection,
        sums.task,
        part_names.part,
        sums.gpu_span_seconds,
        case part_names.part
            when 'computation' then sums.computation_seconds
            when 'communication' then sums.communication_seconds
            when 'memory' then sums.memory_seconds
            when 'other' then sums.other_seconds
            else sums.idle_seconds
        end as seconds
    from sums
    cross join part_names
),

final as (
    select
        collection,
        task,
        part,
        seconds,
        seconds / nullif(gpu_span_seconds, 0) as share_of_gpu_span
    from parts
)

select * from final
