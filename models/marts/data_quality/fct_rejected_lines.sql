-- Rejected lines: file, line number, the raw text as far as it decodes, and one reason code;
-- for an unknown_event, the event as written and the runlens type it resembles, if any.
-- A view over stg_log_lines; a line that names a run gets its run's collection and task.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
    where reject_reason is not null
),

runs as (
    -- each run's collection and task, from its first run_start (NULL without one)
    select * from {{ ref('int_run_attributes') }}
),

final as (
    select
        lines.file_path || ':' || cast(lines.line_number as {{ dbt.type_string() }}) as reject_id,
        lines.file_path,
        lines.line_number,
        lines.raw_text,
        lines.rejected_run_id as run_id,
        runs.collection,
        runs.task,
        lines.reject_reason,
        lines.event_type as event_name,
        lines.resembles_event_type
    from lines
    left join runs on lines.rejected_run_id = runs.run_id
)

select * from final
