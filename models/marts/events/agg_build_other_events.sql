-- Other events per event type. Grain: one row per event type that occurred.
with

other_events as (
    select * from {{ ref('fct_other_events') }}
),

final as (
    select
        event_type,
        count(*) as other_event_lines,
        count(distinct run_id) as runs,
        count(distinct file_path) as files,
        min(event_at) as first_event_at,
        max(event_at) as last_event_at
    from other_events
    group by event_type
)

select * from final
