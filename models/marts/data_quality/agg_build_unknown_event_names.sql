-- Lines rejected as unknown_event, per name as written, with the runlens event type the name
-- resembles (a likely typo). Grain: one row per name that occurred.
with

rejects as (
    select * from {{ ref('fct_rejected_lines') }}
    where reject_reason = 'unknown_event'
),

final as (
    select
        event_name,
        max(resembles_event_type) as resembles_event_type,
        count(*) as rejected_lines,
        min(file_path || ':' || line_number) as first_seen_at
    from rejects
    group by event_name
)

select * from final
