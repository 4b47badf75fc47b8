-- The state of each run's events, as a fingerprint: the count and an order-free hash of every
-- accepted event of the run. The per-run models recompute a run exactly when its fingerprint
-- changes (macros/incremental_state.sql). Grain: one row per run_id.
with

events as (
    select * from {{ ref('stg_events') }}
),

final as (
    select
        run_id,
        count(*) || ':' || {{ runlens.unordered_hash(
            ['event_id', 'event_type', 'event_at', 'step', 'epoch', 'collection', 'task', 'config',
             'run_end_status', 'profile_wall_seconds', 'profile_sections', 'source_format', 'source_path',
             'is_approximate', 'approximation']
        ) }} as run_fingerprint
    from events
    group by run_id
)

select * from final
