-- Rejected lines: file, line number, the raw text as far as it decodes, and one reason code.
with

event_lines as (
    select * from {{ ref('stg_event_lines') }}
),

final as (
    select
        file_path || ':' || line_number as reject_id,
        file_path,
        line_number,
        raw_text,
        reject_reason
    from event_lines
    where reject_reason is not null
)

select * from final
