-- depends_on: {{ ref('int_run_versions') }}
-- The config of each run, flattened to dotted keys (`optimizer.lr`). Leaves are scalars or
-- arrays, kept as JSON text. When a resumed run logged several run_starts, each key takes the
-- value of the latest run_start that has it. Each object is parsed once per level (a config with
-- 100,000 keys or 10,000 levels stays linear). Grain: one row per run and config key.
with recursive

run_starts as (
    select * from {{ ref('int_event_occurrences') }}
    where
        occurrence = 1 and event_type = 'run_start' and config is not null
        and {{ runlens.is_run_to_compute('run_id') }}
),

top_entries as (
    {{ runlens.json_object_entries_query('run_starts', 'config', ['run_id', 'event_at', 'file_path', 'line_number']) }}
),

entries as (
    select
        run_id,
        event_at,
        file_path,
        line_number,
        entry_key as config_key,
        entry_value as config_value
    from top_entries
    union all
    select
        nested.run_id,
        nested.event_at,
        nested.file_path,
        nested.line_number,
        nested.config_key || '.' || nested.entry_key as config_key,
        nested.entry_value as config_value
    from (
        {{ runlens.json_object_entries_query(
            'entries', 'config_value', ['run_id', 'event_at', 'file_path', 'line_number', 'config_key'],
            where=runlens.is_json_object('config_value')
        ) }}
    ) as nested
),

leaves as (
    select
        run_id,
        event_at,
        file_path,
        line_number,
        config_key,
        {{ runlens.json_to_text('config_value') }} as config_value
    from entries
    where not {{ runlens.is_json_object('config_value') }}
),

config_counts as (
    -- most runs have one config; only a resumed run's keys need the latest of several
    select
        run_id,
        count(*) as configs
    from run_starts
    group by run_id
),

single_config_leaves as (
    select
        leaves.run_id,
        leaves.config_key,
        leaves.config_value
    from leaves
    inner join config_counts on leaves.run_id = config_counts.run_id
    where config_counts.configs = 1
),

latest_of_several as (
    select
        leaves.run_id,
        leaves.config_key,
        leaves.config_value,
        row_number() over (
            partition by leaves.run_id, leaves.config_key
            order by leaves.event_at desc, leaves.file_path desc, leaves.line_number desc
        ) as recency_rank
    from leaves
    inner join config_counts on leaves.run_id = config_counts.run_id
    where config_counts.configs > 1
),

final as (
    select
        run_id,
        config_key,
        config_value,
        {{ runlens.build_started_at() }} as computed_at
    from single_config_leaves
    union all
    select
        run_id,
        config_key,
        config_value,
        {{ runlens.build_started_at() }} as computed_at
    from latest_of_several
    where recency_rank = 1
)

select * from final
