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

collection_runs as (
    select
        collection,
        count(*) as run_count
    from runs
    group by collection
),

collection_values as (
    -- each collection's values of each key, and how many of its runs have each
    select
        runs.collection,
        config.config_key,
        coalesce(config.config_value, 'null') as config_value,
        count(*) as value_runs
    from config
    inner join runs on config.run_id = runs.run_id
    group by runs.collection, config.config_key, coalesce(config.config_value, 'null')
),

collection_keys as (
    select
        collection,
        config_key,
        sum(value_runs) as key_runs
    from collection_values
    group by collection, config_key
),

pair_sides as (
    -- the two sides of each pair that has runs on both
    select
        pairs.collection,
        pairs.baseline_collection,
        'current' as side,
        pairs.collection as side_collection,
        collection_runs.run_count
    from pairs
    inner join collection_runs on pairs.collection = collection_runs.collection
    union all
    select
        pairs.collection,
        pairs.baseline_collection,
        'baseline' as side,
        pairs.baseline_collection as side_collection,
        collection_runs.run_count
    from pairs
    inner join collection_runs on pairs.baseline_collection = collection_runs.collection
),

pair_keys as (
    -- the keys any run of either side has
    select distinct
        pair_sides.collection,
        collection_keys.config_key
    from pair_sides
    inner join collection_keys on pair_sides.side_collection = collection_keys.collection
),

run_values as (
    -- every run of either side has a value for every key of the pair; missing counts as null
    select
        pair_sides.collection,
        pair_sides.baseline_collection,
        pair_sides.side,
        pair_keys.config_key,
        collection_values.config_value
    from pair_sides
    inner join pair_keys on pair_sides.collection = pair_keys.collection
    inner join collection_values
        on pair_sides.side_collection = collection_values.collection
        and pair_keys.config_key = collection_values.config_key
    union
    select
        pair_sides.collection,
        pair_sides.baseline_collection,
        pair_sides.side,
        pair_keys.config_key,
        'null' as config_value
    from pair_sides
    inner join pair_keys on pair_sides.collection = pair_keys.collection
    left join collection_keys
        on pair_sides.side_collection = collection_keys.collection
        and pair_keys.config_key = collection_keys.config_key
    where coalesce(collection_keys.key_runs, 0) < pair_sides.run_count
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
