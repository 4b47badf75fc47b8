-- Accepted events: the first occurrence of every distinct valid event (int_event_occurrences).
-- A view: its rows are int_event_occurrences' own, each with its run's collection and task.
-- Grain: one row per event.
with

occurrences as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1
),

runs as (
    -- each run's collection and task, from its first run_start (NULL without one)
    select * from {{ ref('int_run_attributes') }}
),

final as (
    select
        occurrences.event_id,
        occurrences.file_path,
        occurrences.line_number,
        occurrences.run_id,
        runs.collection,
        runs.task,
        occurrences.event_type,
        occurrences.event_at,
        occurrences.step,
        occurrences.epoch,
        occurrences.rank,
        occurrences.world_size,
        occurrences.config,
        occurrences.run_end_status,
        occurrences.profile_wall_seconds,
        occurrences.profile_sections,
        occurrences.profile_is_final,
        occurrences.source_format,
        occurrences.source_path,
        occurrences.is_approximate,
        occurrences.approximation
    from occurrences
    left join runs on occurrences.run_id = runs.run_id
)

select * from final
