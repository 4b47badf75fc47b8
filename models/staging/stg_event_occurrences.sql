-- Every valid line with its occurrence number among exact duplicates: lines with the same
-- run_id, event, ts (as UTC), step and epoch are one event; the first by file path and line
-- number is occurrence 1, the accepted one (input_contract.md, "Where every line ends up").
with

valid_lines as (
    select * from {{ ref('stg_event_lines') }}
    where reject_reason is null
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
        profile_sections,
        source_format,
        source_path,
        is_approximate,
        approximation,
        row_number() over same_event as occurrence,
        first_value(file_path || ':' || line_number) over same_event as first_event_id
    from valid_lines
    window same_event as (
        partition by run_id, event_type, event_at, step, epoch
        order by file_path asc, line_number asc
    )
)

select * from final
