-- Every interval between consecutive markers of a run (def_intervals, def_pre_epoch).
-- Grain: one row per run and interval_index.
with

intervals as (
    select * from {{ ref('int_run_intervals') }}
),

final as (
    select
        run_id,
        collection,
        task,
        interval_index,
        label,
        from_marker,
        to_marker,
        started_at,
        ended_at,
        seconds,
        is_pre_epoch,
        is_downtime,
        down_seconds,
        position_index,
        position_label
    from intervals
)

select * from final
