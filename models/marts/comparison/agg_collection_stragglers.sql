-- How each collection's runs fared against their tasks (def_stragglers): how many could be scored
-- (their task has enough analyzed runs), how many are stragglers and by which rule, with the
-- thresholds they were judged by. Grain: one row per collection with analyzed runs.
{%- set double = var('runlens_types')[target.type].double %}
with

runs as (
    select * from {{ ref('fct_run_stragglers') }}
),

final as (
    select
        collection,
        count(*) as runs,
        count(wall_to_task_median) as runs_scored,
        count(case when is_straggler then 1 end) as stragglers,
        count(case when is_slow_overall then 1 end) as slow_overall,
        count(case when has_outlier_interval then 1 end) as with_outlier_interval,
        cast({{ var('straggler_wall_multiple') }} as {{ double }}) as wall_multiple_threshold,
        cast({{ var('straggler_robust_z') }} as {{ double }}) as robust_z_threshold,
        cast({{ var('straggler_min_excess_share') }} as {{ double }}) as min_excess_share,
        cast({{ var('straggler_min_excess_seconds') }} as {{ double }}) as min_excess_seconds,
        cast({{ var('straggler_min_task_runs') }} as {{ dbt.type_bigint() }}) as min_task_runs
    from runs
    group by collection
)

select * from final
