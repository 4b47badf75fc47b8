-- Rejected lines: file, line number, the raw text as far as it decodes, and one reason code;
-- for an unknown_event, the event as written and the runlens type it resembles, if any.
-- A view over stg_log_lines.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
    where reject_reason is not null
),

final as (
    select
        file_path || ':' || cast(line_number as {{ dbt.type_string() }}) as reject_id,
        file_path,
        line_number,
        raw_text,
        rejected_run_id as run_id,
        reject_reason,
        event_type as event_name,
        resembles_event_type
    from lines
)

select * from final
