-- Config keys whose set of values differs between a collection and its baseline, as candidate
-- explanations of a runtime difference (def_config_differences); keys that identify a run rather
-- than configure it (the seed identity_config_keys and the dbt var of the same name) are left out.
-- Grain: one row per collection and config key.
with

identity_keys as (
    select config_key from {{ ref('identity_config_keys') }}
    {%- for key in var('identity_config_keys', []) %}
    union all
    select {{ runlens.string_literal(key) }} as config_key
    {%- endfor %}
),

pairs as (
    select
        collection,
        baseline_collection
    from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

runs as (
    select
        run_id,
        collection
    from {{ ref('int_run_attributes') }}
    where collection is not null
),

config as (
    -- a key is an identity key when it is one, or its last dotted part is one (`trainer.seed`)
    select * from {{ ref('int_run_config') }}
    where not exists (
        select 1
        from identity_keys
        where
            int_run_config.config_key = identity_keys.config_key
            or right(int_run_config.config_key, length(identity_keys.config_key) + 1) = '.' || identity_keys.config_key
    )
),

pair_runs as (
    select
        pairs.collection,
        pairs.baseline_collection,
        'current' as side,
        runs.run_id
    from pairs
    inner join runs on pairs.collection = runs.collection
    union all
    select
        pairs.collection,
        pairs.baseline_collection,
        'baseline' as side,
        runs.run_id
    from pairs
    inner join runs on pairs.baseline_collection = runs.collection
),

pair_keys as (
    select distinct
        pair_runs.collection,
        config.config_key
    from pair_runs
    inner join config on pair_runs.run_id = config.run_id
),

run_values as (
    -- every run of either side has a value for every key of the pair; missing counts as null
    select distinct
        pair_runs.collection,
        pair_runs.baseline_collection,
        pair_runs.side,
        pair_keys.config_key,
        coalesce(config.config_value, 'null') as config_value
    from pair_runs
    inner join pair_keys on pair_runs.collection = pair_keys.collection
    left join config
        on pair_runs.run_id = config.run_id
        and pair_keys.config_key = config.config_key
),

value_sets as (
    select
        collection,
        baseline_collection,
        side,
        config_key,
        {{ dbt.listagg('config_value', "', '", 'order by config_value') }} as config_values
    from run_values
    group by collection, baseline_collection, side, config_key
),

final as (
    select
        current_side.collection,
        current_side.baseline_collection,
        current_side.config_key,
        current_side.config_values as {{ adapter.quote('values') }},  -- noqa: RF06
        baseline_side.config_values as baseline_values
    from value_sets as current_side
    inner join value_sets as baseline_side
        on current_side.collection = baseline_side.collection
        and current_side.config_key = baseline_side.config_key
        and baseline_side.side = 'baseline'
    where
        current_side.side = 'current'
        and current_side.config_values != baseline_side.config_values
)

select * from final
