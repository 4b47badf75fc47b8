-- How well the ETA's range held on each task's finished runs replayed as if live (def_eta_replays),
-- before and after its calibration (def_eta_calibration), and how far the point estimate was from
-- the truth. The factor a task's live runs get: the task's own with at least
-- eta_calibration_min_replays replays, else its collection's, else none (the uncorrected range).
-- Grain: one row per collection and task with a replay.
{%- set double = var('runlens_types')[target.type].double %}
with

replays as (
    select * from {{ ref('int_run_eta_replays') }}
),

scales as (
    select * from {{ ref('int_task_eta_range_scales') }}
),

chosen as (
    select
        task_scales.collection,
        task_scales.task,
        task_scales.finished_runs,
        task_scales.replays,
        task_scales.range_scale as task_range_scale,
        case
            when task_scales.range_scale is not null then 'task'
            when collection_scales.range_scale is not null then 'collection'
            else 'none'
        end as range_calibration,
        coalesce(task_scales.range_scale, collection_scales.range_scale) as range_scale
    from scales as task_scales
    inner join scales as collection_scales
        on collection_scales.calibration_set = 'collection'
        and task_scales.collection = collection_scales.collection
    where task_scales.calibration_set = 'task'
),

scored as (
    select
        replays.collection,
        replays.task,
        case when replays.is_held then 1 else 0 end as held_before,
        case
            when chosen.range_scale is null then case when replays.is_held then 1 else 0 end
            when replays.scale_to_hold <= chosen.range_scale then 1
            else 0
        end as held_after,
        abs(replays.remaining_seconds - replays.true_remaining_seconds) as abs_error_seconds,
        abs(replays.remaining_seconds - replays.true_remaining_seconds) / replays.true_remaining_seconds
            as relative_error
    from replays
    inner join chosen
        on replays.collection = chosen.collection
        and replays.task = chosen.task
),

measured as (
    select
        collection,
        task,
        cast(sum(held_before) as {{ double }}) / count(*) as coverage_before,
        cast(sum(held_after) as {{ double }}) / count(*) as coverage_after,
        {{ runlens.median('abs_error_seconds') }} as median_abs_error_seconds,
        {{ runlens.median('relative_error') }} as median_relative_error
    from scored
    group by collection, task
),

final as (
    select
        chosen.collection,
        chosen.task,
        chosen.finished_runs,
        chosen.replays,
        chosen.task_range_scale,
        chosen.range_calibration,
        chosen.range_scale,
        measured.coverage_before,
        measured.coverage_after,
        measured.median_abs_error_seconds,
        measured.median_relative_error
    from chosen
    inner join measured
        on chosen.collection = measured.collection
        and chosen.task = measured.task
)

select * from final
