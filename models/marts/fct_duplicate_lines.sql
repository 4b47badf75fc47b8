-- Exact duplicates: valid lines that repeat an accepted event, with the event they repeat.
-- A view over int_event_occurrences.
with

occurrences as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence > 1
),

final as (
    select
        event_id as duplicate_id,
        file_path,
        line_number,
        run_id,
        event_type,
        first_event_id as original_event_id
    from occurrences
)

select * from final
