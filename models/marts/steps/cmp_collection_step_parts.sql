-- Which parts of a profiled step moved between a collection and its baseline (def_step_comparison):
-- per step, the host's data loading and the GPU's computation, communication, memory, other and
-- idle time, over all tasks (scope `all_tasks`, task NULL) and per task profiled on both sides
-- (scope `task`). The GPU's parts only where both sides' steps hold GPU events.
-- Grain: one row per collection that names a baseline, scope, task and part.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

steps as (
    select * from {{ ref('fct_run_steps') }}
    where collection is not null
),

steps_in_scopes as (
    -- every step twice: in its collection's `all_tasks` scope and in its task's
    select
        collection,
        'all_tasks' as scope,
        cast(null as {{ dbt.type_string() }}) as task,
        wall_seconds,
        data_loading_seconds,
        has_gpu_events,
        gpu_span_seconds,
        compute_seconds,
        communication_seconds,
        memory_seconds,
        other_gpu_seconds,
        idle_seconds
    from steps
    union all
    select
        collection,
        'task' as scope,
        task,
        wall_seconds,
        data_loading_seconds,
        has_gpu_events,
        gpu_span_seconds,
        compute_seconds,
        communication_seconds,
        memory_seconds,
        other_gpu_seconds,
        idle_seconds
    from steps
    where task is not null
),

sides as (
    select
        collection,
        scope,
        task,
        count(*) as steps,
        sum(wall_seconds) as wall_seconds,
        sum(data_loading_seconds) as data_loading_seconds,
        min(case when has_gpu_events then 1 else 0 end) = 1 as every_step_has_gpu_events,
        sum(gpu_span_seconds) as gpu_span_seconds,
        sum(compute_seconds) as computation_seconds,
        sum(communication_seconds) as communication_seconds,
        sum(memory_seconds) as memory_seconds,
        sum(other_gpu_seconds) as other_seconds,
        sum(idle_seconds) as idle_seconds
    from steps_in_scopes
    group by collection, scope, task
),

paired as (
    select
        collections.collection,
        collections.baseline_collection,
        own.scope,
        own.task,
        own.steps,
        baseline.steps as baseline_steps,
        own.wall_seconds,
        baseline.wall_seconds as baseline_wall_seconds,
        own.every_step_has_gpu_events and baseline.every_step_has_gpu_events as both_sides_have_gpu_events,
        own.data_loading_seconds,
        baseline.data_loading_seconds as baseline_data_loading_seconds,
        own.gpu_span_seconds,
        baseline.gpu_span_seconds as baseline_gpu_span_seconds,
        own.computation_seconds,
        baseline.computation_seconds as baseline_computation_seconds,
        own.communication_seconds,
        baseline.communication_seconds as baseline_communication_seconds,
        own.memory_seconds,
        baseline.memory_seconds as baseline_memory_seconds,
        own.other_seconds,
        baseline.other_seconds as baseline_other_seconds,
        own.idle_seconds,
        baseline.idle_seconds as baseline_idle_seconds
    from collections
    inner join sides as own on collections.collection = own.collection
    inner join sides as baseline
        on collections.baseline_collection = baseline.collection
        and own.scope = baseline.scope
        and (own.task = baseline.task or own.scope = 'all_tasks')
),

part_names as (
    select
        'data_loading' as part,
        1 as part_order
    union all
    select
        'computation' as part,
        2 as part_order
    union all
    select
        'communication' as part,
        3 as part_order
    union all
    select
        'memory' as part,
        4 as part_order
    union all
    select
        'other' as part,
        5 as part_order
    union all
    select
        'idle' as part,
        6 as part_order
),

parts as (
    select
        paired.collection,
        paired.baseline_collection,
        paired.scope,
        paired.task,
        part_names.part,
        part_names.part_order,
        paired.steps,
        paired.baseline_steps,
        paired.wall_seconds / paired.steps as mean_step_seconds,
        paired.baseline_wall_seconds / paired.baseline_steps as baseline_mean_step_seconds,
        -- data loading is a share of the steps' wall time, the GPU's parts of their GPU span
        case when part_names.part = 'data_loading' then paired.wall_seconds else paired.gpu_span_seconds end
            as whole_seconds,
        case
            when part_names.part = 'data_loading' then paired.baseline_wall_seconds
            else paired.baseline_gpu_span_seconds
        end as baseline_whole_seconds,
        case part_names.part
            when 'data_loading' then paired.data_loading_seconds
            when 'computation' then paired.computation_seconds
            when 'communication' then paired.communication_seconds
            when 'memory' then paired.memory_seconds
            when 'other' then paired.other_seconds
            else paired.idle_seconds
        end as seconds,
        case part_names.part
            when 'data_loading' then paired.baseline_data_loading_seconds
            when 'computation' then paired.baseline_computation_seconds
            when 'communication' then paired.baseline_communication_seconds
            when 'memory' then paired.baseline_memory_seconds
            when 'other' then paired.baseline_other_seconds
            else paired.baseline_idle_seconds
        end as baseline_seconds
    from paired
    cross join part_names
    where part_names.part = 'data_loading' or paired.both_sides_have_gpu_events
),

changes as (
    select
        *,
        seconds / steps as seconds_per_step,
        baseline_seconds / baseline_steps as baseline_seconds_per_step,
        seconds / steps - baseline_seconds / baseline_steps as change_seconds_per_step,
        seconds / nullif(whole_seconds, 0) as share,
        baseline_seconds / nullif(baseline_whole_seconds, 0) as baseline_share
    from parts
),

final as (
    select
        collection,
        baseline_collection,
        scope,
        task,
        part,
        cast(part_order as {{ dbt.type_bigint() }}) as part_order,
        steps,
        baseline_steps,
        mean_step_seconds,
        baseline_mean_step_seconds,
        seconds_per_step,
        baseline_seconds_per_step,
        change_seconds_per_step,
        share,
        baseline_share,
        share - baseline_share as share_change,
        -- a part that did not move explains none of the change (0, not the -0 of 0 over a fall)
        case
            when mean_step_seconds = baseline_mean_step_seconds then null
            when change_seconds_per_step = 0 then 0
            else change_seconds_per_step / (mean_step_seconds - baseline_mean_step_seconds)
        end as share_of_step_change
    from changes
)

select * from final
