-- How well the ETA's range held on a collection's finished runs replayed as if live
-- (def_eta_replays): before calibration, and after it with the factor each replay's task gets
-- (def_eta_calibration; the collection's own for a run without a task), and how far the point
-- estimate was from the truth. What the page's live section says of its ranges.
-- Grain: one row per collection with a replay.
{%- set double = var('runlens_types')[target.type].double %}
with

replays as (
    select * from {{ ref('int_run_eta_replays') }}
),

scales as (
    select * from {{ ref('int_task_eta_range_scales') }}
),

task_calibration as (
    select * from {{ ref('agg_task_eta_calibration') }}
),

collection_scales as (
    select * from scales
    where calibration_set = 'collection'
),

scored as (
    select
        replays.collection,
        case when replays.is_held then 1 else 0 end as held_before,
        case
            when coalesce(task_calibration.range_scale, collection_scales.range_scale) is null
                then case when replays.is_held then 1 else 0 end
            when replays.scale_to_hold <= coalesce(task_calibration.range_scale, collection_scales.range_scale)
                then 1
            else 0
        end as held_after,
        case
            when coalesce(task_calibration.range_scale, collection_scales.range_scale) is null then 0 else 1
        end as is_calibrated,
        abs(replays.remaining_seconds - replays.true_remaining_seconds) as abs_error_seconds,
        abs(replays.remaining_seconds - replays.true_remaining_seconds) / replays.true_remaining_seconds
            as relative_error
    from replays
    inner join collection_scales on replays.collection = collection_scales.collection
    left join task_calibration
        on replays.collection = task_calibration.collection
        and replays.task = task_calibration.task
),

measured as (
    select
        collection,
        count(case when is_calibrated = 1 then 1 end) as replays_calibrated,
        cast(sum(held_before) as {{ double }}) / count(*) as coverage_before,
        cast(sum(held_after) as {{ double }}) / count(*) as coverage_after,
        {{ runlens.median('abs_error_seconds') }} as median_abs_error_seconds,
        {{ runlens.median('relative_error') }} as median_relative_error
    from scored
    group by collection
),

final as (
    select
        collection_scales.collection,
        collection_scales.finished_runs,
        collection_scales.replays,
        measured.replays_calibrated,
        collection_scales.range_scale as collection_range_scale,
        measured.coverage_before,
        measured.coverage_after,
        measured.median_abs_error_seconds,
        measured.median_relative_error
    from collection_scales
    inner join measured on collection_scales.collection = measured.collection
)

select * from final
