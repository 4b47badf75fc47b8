-- The factor each task's and each collection's ETA range is scaled by (def_eta_calibration): over
-- its replays (int_run_eta_replays), the smallest factor on the range's half-widths around the
-- estimate at which at least eta_range_target_coverage of the replays hold the truth; NULL with
-- fewer than eta_calibration_min_replays replays, or when no factor reaches the target (too many
-- replays whose range has no width on the truth's side).
-- Grain: one row per calibration set (task or collection), collection and task.
with

replays as (
    select * from {{ ref('int_run_eta_replays') }}
),

calibration_sets as (
    -- each replay once in its task's set and once in its collection's
    select
        'task' as calibration_set,
        collection,
        task as task_key,
        run_id,
        scale_to_hold
    from replays
    where task is not null
    union all
    select
        'collection' as calibration_set,
        collection,
        '' as task_key,
        run_id,
        scale_to_hold
    from replays
),

ranked as (
    -- the factors each replay needs, smallest first; one no factor reaches last
    select
        *,
        count(*) over (partition by calibration_set, collection, task_key) as replays,
        row_number() over (
            partition by calibration_set, collection, task_key
            order by case when scale_to_hold is null then 1 else 0 end, scale_to_hold, run_id
        ) as scale_rank
    from calibration_sets
),

scales as (
    -- the factor of the ceil(target x replays)-th replay: the smallest that holds that many
    select
        calibration_set,
        collection,
        task_key,
        count(distinct run_id) as finished_runs,
        min(replays) as replays,
        max(
            case
                when scale_rank = ceil({{ var('eta_range_target_coverage') }} * replays) then scale_to_hold
            end
        ) as needed_scale
    from ranked
    group by calibration_set, collection, task_key
),

final as (
    select
        calibration_set,
        collection,
        case when calibration_set = 'task' then task_key end as task,
        finished_runs,
        replays,
        case when replays >= {{ var('eta_calibration_min_replays') }} then needed_scale end as range_scale
    from scales
)

select * from final
