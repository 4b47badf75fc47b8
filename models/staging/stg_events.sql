-- Accepted events: valid lines that are not exact duplicates of an earlier accepted line.
with

event_lines as (
    select * from {{ ref('stg_event_lines') }}
),

final as (
    select
        file_path || ':' || line_number as event_id,
        file_path,
        line_number,
        run_id,
        event_type,
        event_at,
        step,
        epoch,
        collection,
        task,
        config,
        run_end_status,
        profile_wall_seconds,
        profile_sections
    from event_lines
    where reject_reason is null and not is_duplicate
)

select * from final
