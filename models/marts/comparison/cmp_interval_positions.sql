-- A collection's pre-epoch interval positions against its baseline's, position by position
-- (def_later_windows, def_difference_shares). Grain: one row per collection and interval_index
-- present on both sides.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

positions as (
    select * from {{ ref('agg_interval_positions') }}
),

final as (
    select
        collections.collection,
        collections.baseline_collection,
        current_side.interval_index,
        current_side.most_common_label,
        current_side.runs,
        baseline_side.runs as baseline_runs,
        current_side.mean_seconds,
        baseline_side.mean_seconds as baseline_mean_seconds,
        current_side.mean_seconds - baseline_side.mean_seconds as delta_seconds,
        case
            when baseline_side.mean_seconds > 0 then current_side.mean_seconds / baseline_side.mean_seconds
        end as ratio
    from collections
    inner join positions as current_side on collections.collection = current_side.collection
    inner join positions as baseline_side
        on collections.baseline_collection = baseline_side.collection
        and current_side.interval_index = baseline_side.interval_index
)

select * from final
