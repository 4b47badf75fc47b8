-- Each collection's chain of baselines (def_version_chains): the collection itself at step 0, its
-- baseline at step 1, that one's baseline at step 2, and so on back to the first version, with
-- each step's speedup over its own baseline and its regressed tasks. Grain: one row per collection
-- that has a baseline (chain_collection) and step of its chain.
{%- set max_steps = var('version_chain_max_steps') %}
with

collections as (
    select * from {{ ref('dim_collections') }}
),

comparisons as (
    select * from {{ ref('cmp_collection_runtime') }}
),

walks as (
    -- step_<k>: the collection k baselines back from the chain's end (NULL past the root)
    select
        step_0.collection as chain_collection,
        {% for step in range(max_steps + 1) -%}
            step_{{ step }}.collection as step_{{ step }}_collection{% if not loop.last %},{% endif %}
        {% endfor %}
    from collections as step_0
    {% for step in range(1, max_steps + 1) -%}
        left join collections as step_{{ step }}
            on step_{{ step - 1 }}.baseline_collection = step_{{ step }}.collection
            {%- for earlier in range(step) %}
                and step_{{ step }}.collection != step_{{ earlier }}.collection
            {%- endfor %}
    {% endfor %}
    where step_0.baseline_collection is not null
),

steps as (
    {% for step in range(max_steps + 1) -%}
        select
            chain_collection,
            cast({{ step }} as {{ dbt.type_bigint() }}) as step,
            step_{{ step }}_collection as step_collection
        from walks
        where step_{{ step }}_collection is not null
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

chain_lengths as (
    select
        chain_collection,
        max(step) as last_step
    from steps
    group by chain_collection
),

baselines as (
    select distinct baseline_collection from collections
    where baseline_collection is not null
),

final as (
    select
        steps.chain_collection,
        steps.step,
        steps.step_collection,
        collections.baseline_collection as step_baseline_collection,
        comparisons.speedup as step_speedup,
        coalesce(comparisons.regressed_tasks, 0) as step_regressed_tasks,
        steps.step = chain_lengths.last_step as is_first_version,
        chain_lengths.last_step + 1 as chain_versions,
        baselines.baseline_collection is null as is_chain_end
    from steps
    inner join chain_lengths on steps.chain_collection = chain_lengths.chain_collection
    inner join collections on steps.step_collection = collections.collection
    left join comparisons on steps.step_collection = comparisons.collection
    left join baselines on steps.chain_collection = baselines.baseline_collection
)

select * from final
