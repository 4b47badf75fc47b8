-- Accepted events: the first occurrence of every distinct valid event (int_event_occurrences).
-- A view: its rows are int_event_occurrences' own.
with

occurrences as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1
),

final as (
    select
        event_id,
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
        profile_sections,
        profile_is_final,
        source_format,
        source_path,
        is_approximate,
        approximation
    from occurrences
)

select * from final
