-- Other events: the valid lines of an event type runlens does not use, kept apart (not rejected),
-- with their run (and its collection and task), type, time, step, epoch and the line itself. A
-- view over stg_log_lines. Grain: one row per such line.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
    where is_other_event
),

runs as (
    -- each run's collection and task, from its first run_start (NULL without one)
    select * from {{ ref('int_run_attributes') }}
),

final as (
    select
        lines.file_path || ':' || cast(lines.line_number as {{ dbt.type_string() }}) as other_event_id,
        lines.file_path,
        lines.line_number,
        lines.run_id,
        runs.collection,
        runs.task,
        lines.event_type,
        lines.event_at,
        lines.step,
        lines.epoch,
        lines.raw_text
    from lines
    left join runs on lines.run_id = runs.run_id
)

select * from final
