-- The config of each run, flattened to dotted keys (`optimizer.lr`). Leaves are scalars or
-- arrays, kept as JSON text. When a resumed run logged several run_starts, each key takes the
-- value of the latest run_start that has it. Grain: one row per run and config key.
with

run_starts as (
    select * from {{ ref('stg_events') }}
    where event_type = 'run_start' and config is not null and {{ runlens.is_run_to_compute('run_id') }}
),

fingerprints as (
    select * from {{ ref('int_run_fingerprints') }}
),

nodes as (
    select
        run_starts.run_id,
        run_starts.event_at,
        run_starts.file_path,
        run_starts.line_number,
        node.id as node_id,
        node.parent as parent_id,
        node.fullkey,
        node.type as node_type,
        node.value as node_value
    from run_starts
    cross join json_tree(run_starts.config) as node
),

leaves as (
    -- a leaf is a non-object value directly inside an object (array elements stay in their array)
    select
        child.run_id,
        child.event_at,
        child.file_path,
        child.line_number,
        regexp_replace(child.fullkey, '^\$\.', '') as config_key,
        child.node_value::varchar as config_value
    from nodes as child
    inner join nodes as parent
        on child.run_id = parent.run_id
        and child.event_at = parent.event_at
        and child.file_path = parent.file_path
        and child.line_number = parent.line_number
        and child.parent_id = parent.node_id
    where child.node_type != 'OBJECT' and parent.node_type = 'OBJECT'
),

ranked as (
    select
        *,
        row_number() over (
            partition by run_id, config_key
            order by event_at desc, file_path desc, line_number desc
        ) as recency_rank
    from leaves
),

final as (
    select
        ranked.run_id,
        ranked.config_key,
        ranked.config_value,
        fingerprints.run_fingerprint
    from ranked
    inner join fingerprints on ranked.run_id = fingerprints.run_id
    where ranked.recency_rank = 1
)

select * from final
