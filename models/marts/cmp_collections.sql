-- Each collection against the baseline that the collections file (stg_collections) names for it
-- (def_comparison). Grain: one row per collection that has a baseline.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

runtime as (
    select * from {{ ref('agg_collection_runtime') }}
),

regressions as (
    select
        collection,
        count(*) as regressed_tasks
    from {{ ref('cmp_task_runtime') }}
    where is_regression
    group by collection
),

final as (
    select
        collections.collection,
        collections.baseline_collection,
        current_side.runs_analyzed,
        coalesce(baseline_side.runs_analyzed, 0) as baseline_runs_analyzed,
        current_side.mean_wall_seconds,
        baseline_side.mean_wall_seconds as baseline_mean_wall_seconds,
        current_side.mean_wall_seconds - baseline_side.mean_wall_seconds as delta_seconds,
        case
            when current_side.mean_wall_seconds > 0
                then baseline_side.mean_wall_seconds / current_side.mean_wall_seconds
        end as speedup,
        current_side.measurement_source,
        baseline_side.measurement_source as baseline_measurement_source,
        current_side.measurement_source = baseline_side.measurement_source as sources_match,
        coalesce(regressions.regressed_tasks, 0) as regressed_tasks
    from collections
    inner join runtime as current_side on collections.collection = current_side.collection
    left join runtime as baseline_side on collections.baseline_collection = baseline_side.collection
    left join regressions on collections.collection = regressions.collection
)

select * from final
