-- depends_on: {{ ref('int_run_versions') }}
-- Every valid line with its occurrence number among exact duplicates: lines with the same
-- run_id, event, ts (as UTC), step and epoch are one event; the first by file path and line
-- number is occurrence 1, the accepted one (input_contract.md, "Where every line ends up").
-- Incremental by run (macros/run_versions.sql). Grain: one row per valid line.
with

valid_lines as (
    select * from {{ ref('stg_log_lines') }}
    where run_id is not null and {{ runlens.is_run_to_compute('run_id') }}
),

final as (
    select
        file_path || ':' || cast(line_number as {{ dbt.type_string() }}) as event_id,
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
        approximation,
        row_number() over same_event as occurrence,
        first_value(file_path || ':' || cast(line_number as {{ dbt.type_string() }})) over same_event
            as first_event_id,
        {{ runlens.build_started_at() }} as computed_at
    from valid_lines
    window same_event as (
        partition by run_id, event_type, event_at, step, epoch
        order by file_path asc, line_number asc
    )
)

select * from final
