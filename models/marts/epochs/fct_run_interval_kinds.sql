-- Every interval of a run with its kind, from the event types of the two markers that bound it
-- (def_interval_kinds). Grain: one row per run and interval_index, as fct_run_intervals.
with

intervals as (
    select * from {{ ref('fct_run_intervals') }}
),

typed as (
    -- a marker's label is its event type, except a checkpoint's (`step_<n>`, def_markers)
    select
        run_id,
        collection,
        task,
        interval_index,
        label,
        seconds,
        is_downtime,
        case
            when from_marker in ('run_start', 'epoch_end', 'run_end') then from_marker else 'checkpoint'
        end as from_event_type,
        case
            when to_marker in ('run_start', 'epoch_end', 'run_end') then to_marker else 'checkpoint'
        end as to_event_type
    from intervals
),

final as (
    select
        run_id,
        collection,
        task,
        interval_index,
        label,
        from_event_type,
        to_event_type,
        case
            when is_downtime then '... -> run_start'
            else from_event_type || ' -> ' || to_event_type
        end as interval_kind,
        seconds
    from typed
)

select * from final
