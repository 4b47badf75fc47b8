-- Per-task comparison of a collection with its baseline, for tasks present in both
-- (def_comparison). Grain: one row per collection and task.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

tasks as (
    select * from {{ ref('agg_task_runtime') }}
),

final as (
    select
        collections.collection,
        collections.baseline_collection,
        current_side.task,
        current_side.runs_analyzed as runs,
        baseline_side.runs_analyzed as baseline_runs,
        current_side.mean_wall_seconds,
        baseline_side.mean_wall_seconds as baseline_mean_wall_seconds,
        current_side.mean_wall_seconds - baseline_side.mean_wall_seconds as delta_seconds,
        case
            when current_side.mean_wall_seconds > 0
                then baseline_side.mean_wall_seconds / current_side.mean_wall_seconds
        end as speedup,
        coalesce(
            current_side.runs_analyzed >= {{ var('regression_min_runs') }}
            and baseline_side.runs_analyzed >= {{ var('regression_min_runs') }}
            and current_side.mean_wall_seconds
            > (1 + {{ var('regression_threshold') }}) * baseline_side.mean_wall_seconds,
            false
        ) as is_regression
    from collections
    inner join tasks as current_side on collections.collection = current_side.collection
    inner join tasks as baseline_side
        on collections.baseline_collection = baseline_side.collection
        and current_side.task = baseline_side.task
)

select * from final
