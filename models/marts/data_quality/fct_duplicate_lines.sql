-- Exact duplicates: valid lines that repeat an accepted event, with the event they repeat.
-- A view over int_event_occurrences, each with its run's collection and task.
-- Grain: one row per duplicate line.
with

occurrences as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence > 1
),

runs as (
    -- each run's collection and task, from its first run_start (NULL without one)
    select * from {{ ref('int_run_attributes') }}
),

final as (
    select
        occurrences.event_id as duplicate_id,
        occurrences.file_path,
        occurrences.line_number,
        occurrences.run_id,
        runs.collection,
        runs.task,
        occurrences.event_type,
        occurrences.first_event_id as original_event_id
    from occurrences
    left join runs on occurrences.run_id = runs.run_id
)

select * from final
