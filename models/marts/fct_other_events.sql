-- Other events: the valid lines of an event type runlens does not use, kept apart (not rejected),
-- with their run, type, time, step, epoch and the line itself. A view over stg_log_lines.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
    where is_other_event
),

final as (
    select
        file_path || ':' || cast(line_number as {{ dbt.type_string() }}) as other_event_id,
        file_path,
        line_number,
        run_id,
        event_type,
        event_at,
        step,
        epoch,
        raw_text
    from lines
)

select * from final
