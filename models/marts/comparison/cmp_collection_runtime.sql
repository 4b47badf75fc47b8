-- Each collection against the baseline that the collections file (stg_collections) names for it
-- (def_comparison), as raw means and on the tasks both sides ran, at this collection's task mix
-- (def_matched_tasks). Grain: one row per collection that has a baseline.
{%- set double = var('runlens_types')[target.type].double %}
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

runtime as (
    select * from {{ ref('agg_collection_runtime') }}
),

task_pairs as (
    select * from {{ ref('cmp_task_runtime') }}
),

task_runtime as (
    select * from {{ ref('agg_task_runtime') }}
    where runs_analyzed > 0
),

regressions as (
    select
        collection,
        count(*) as regressed_tasks
    from task_pairs
    where is_regression
    group by collection
),

side_tasks as (
    select
        collection,
        count(*) as tasks,
        sum(runs_analyzed) as runs
    from task_runtime
    group by collection
),

matched_pairs as (
    -- the tasks with analyzed runs on both sides, each with its share of either side's runs
    select
        task_pairs.collection,
        task_pairs.runs,
        task_pairs.mean_wall_seconds,
        task_pairs.baseline_mean_wall_seconds,
        cast(task_pairs.runs as {{ double }}) / current_side.runs as run_share,
        cast(task_pairs.baseline_runs as {{ double }}) / baseline_side.runs as baseline_run_share
    from task_pairs
    inner join side_tasks as current_side on task_pairs.collection = current_side.collection
    inner join side_tasks as baseline_side on task_pairs.baseline_collection = baseline_side.collection
    where task_pairs.runs > 0 and task_pairs.baseline_runs > 0
),

matched as (
    -- the baseline at this collection's task mix: its per-task means weighted by this side's runs
    select
        collection,
        count(*) as matched_tasks,
        sum(runs) as matched_runs,
        sum(runs * mean_wall_seconds) / sum(runs) as matched_mean_wall_seconds,
        sum(runs * baseline_mean_wall_seconds) / sum(runs) as matched_baseline_mean_wall_seconds,
        -- the total variation distance of the two task mixes: the share of runs that would have
        -- to move between tasks to make them equal
        sum(abs(run_share - baseline_run_share)) / 2 as task_mix_distance
    from matched_pairs
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
        coalesce(regressions.regressed_tasks, 0) as regressed_tasks,
        coalesce(matched.matched_tasks, 0) as matched_tasks,
        cast(coalesce(matched.matched_runs, 0) as {{ dbt.type_bigint() }}) as matched_runs,
        matched.matched_mean_wall_seconds,
        matched.matched_baseline_mean_wall_seconds,
        case
            when matched.matched_mean_wall_seconds > 0
                then matched.matched_baseline_mean_wall_seconds / matched.matched_mean_wall_seconds
        end as matched_speedup,
        -- a task on one side only, or mixes further apart than the var (a baseline without
        -- analyzed runs has no mix to differ from)
        coalesce(
            baseline_tasks.tasks is not null
            and (
                current_tasks.tasks != coalesce(matched.matched_tasks, 0)
                or baseline_tasks.tasks != coalesce(matched.matched_tasks, 0)
                or matched.task_mix_distance > {{ var('task_mix_difference') }}
            ),
            false
        ) as has_different_task_mix
    from collections
    inner join runtime as current_side on collections.collection = current_side.collection
    left join runtime as baseline_side on collections.baseline_collection = baseline_side.collection
    left join regressions on collections.collection = regressions.collection
    left join matched on collections.collection = matched.collection
    left join side_tasks as current_tasks on collections.collection = current_tasks.collection
    left join side_tasks as baseline_tasks on collections.baseline_collection = baseline_tasks.collection
)

select * from final
