-- Every physical line of the raw logs, parsed once: the lines the reader wrote (the source
-- runlens_raw.log_lines, split by the line rules; runlens/raw_logs/raw_tables.py), each non-blank
-- line parsed, typed and classified against the input contract (input_contract.md: the reason
-- codes and their order), plus one file record per file (line_number 0) with what the listing and
-- the reading said of it. A line of an event type runlens does not use is an other event, kept
-- apart, unless its name looks like a typo of a runlens type (macros/staging/event_types.sql).
-- Incremental by file: the pre-hook deletes the rows of files that are gone or changed (or were
-- read with other event aliases), and only files without rows here are parsed. Duplicates are
-- settled downstream (int_event_occurrences). Grain: one row per line of a file, and one per file
-- (line_number 0).
{{ config(**runlens.incremental_config('file')) }}
{%- set event_fields = [
    'run_id', 'event', 'ts', 'step', 'epoch', 'collection', 'task', 'config', 'status', 'wall_seconds',
    'sections', 'final', 'source_format', 'source_path', 'is_approximate', 'approximation', 'resources',
    'rank', 'world_size', 'collective_sections', 'gpu', 'host', 'measurements', 'units'
] %}
with

log_files as (
    select
        file_path,
        file_fingerprint,
        size_bytes,
        modified_at,
        is_gzip,
        read_error
    from {{ source('runlens_raw', 'log_files') }}
    where {{ runlens.is_file_to_read('file_path', 'file_fingerprint') }}
),

log_lines as (
    select
        log_lines.file_path,
        log_lines.file_fingerprint,
        log_lines.line_number,
        log_lines.text,
        log_lines.is_invalid_utf8,
        log_lines.is_blank
    from {{ source('runlens_raw', 'log_lines') }} as log_lines
    inner join log_files
        on log_lines.file_path = log_files.file_path and log_lines.file_fingerprint = log_files.file_fingerprint
),

physical_lines as (
    select
        file_path,
        file_fingerprint,
        line_number,
        text,
        is_invalid_utf8,
        is_blank,
        cast(null as {{ dbt.type_bigint() }}) as size_bytes,
        cast(null as {{ dbt.type_timestamp() }}) as modified_at,
        cast(null as {{ dbt.type_boolean() }}) as is_gzip,
        cast(null as {{ dbt.type_string() }}) as read_error
    from log_lines
    union all
    select
        file_path,
        file_fingerprint,
        0 as line_number,
        cast(null as {{ dbt.type_string() }}) as text,
        false as is_invalid_utf8,
        false as is_blank,
        size_bytes,
        modified_at,
        is_gzip,
        read_error
    from log_files
),

parsed as {{ runlens.materialized_cte() }} (
    select
        file_path,
        file_fingerprint,
        line_number,
        text as raw_text,
        is_invalid_utf8,
        is_blank,
        size_bytes,
        modified_at,
        is_gzip,
        read_error,
        case
            when line_number > 0 and not is_blank and not is_invalid_utf8
                then {{ runlens.try_parse_json('text', event_fields) }}
        end as doc
    from physical_lines
),

documents as (
    select
        *,
        {{ runlens.parsed_fields('doc', event_fields) }} as doc_fields
    from parsed
),

fields as {{ runlens.materialized_cte() }} (
    select
        file_path,
        file_fingerprint,
        line_number,
        raw_text,
        is_invalid_utf8,
        is_blank,
        size_bytes,
        modified_at,
        is_gzip,
        read_error,
        doc,
        {{ runlens.is_parsed_object('doc_fields') }} as is_object,
        {{ runlens.json_kind('doc_fields', 'run_id') }} as run_id_kind,
        {{ runlens.json_text('doc_fields', 'run_id') }} as run_id,
        {{ runlens.json_kind('doc_fields', 'event') }} as event_kind,
        {{ runlens.json_text('doc_fields', 'event') }} as event_name,
        {{ runlens.json_kind('doc_fields', 'ts') }} as ts_kind,
        {{ runlens.json_text('doc_fields', 'ts') }} as ts_text,
        {{ runlens.json_kind('doc_fields', 'step') }} as step_kind,
        {{ runlens.json_text('doc_fields', 'step') }} as step_text,
        {{ runlens.json_kind('doc_fields', 'epoch') }} as epoch_kind,
        {{ runlens.json_text('doc_fields', 'epoch') }} as epoch_text,
        {{ runlens.json_kind('doc_fields', 'collection') }} as collection_kind,
        {{ runlens.json_text('doc_fields', 'collection') }} as collection,
        {{ runlens.json_kind('doc_fields', 'task') }} as task_kind,
        {{ runlens.json_text('doc_fields', 'task') }} as task,
        {{ runlens.json_kind('doc_fields', 'config') }} as config_kind,
        {{ runlens.json_value('doc_fields', 'config') }} as config,
        {{ runlens.json_kind('doc_fields', 'resources') }} as resources_kind,
        {{ runlens.json_value('doc_fields', 'resources') }} as resources,
        {{ runlens.json_text('doc_fields', 'status') }} as run_end_status,
        {{ runlens.json_kind('doc_fields', 'wall_seconds') }} as wall_seconds_kind,
        {{ runlens.json_text('doc_fields', 'wall_seconds') }} as wall_seconds_text,
        {{ runlens.json_kind('doc_fields', 'sections') }} as sections_kind,
        {{ runlens.json_value('doc_fields', 'sections') }} as sections,
        {{ runlens.json_kind('doc_fields', 'final') }} as final_kind,
        {{ runlens.json_text('doc_fields', 'final') }} as final_text,
        {{ runlens.json_kind('doc_fields', 'source_format') }} as source_format_kind,
        {{ runlens.json_text('doc_fields', 'source_format') }} as source_format,
        {{ runlens.json_kind('doc_fields', 'source_path') }} as source_path_kind,
        {{ runlens.json_text('doc_fields', 'source_path') }} as source_path,
        {{ runlens.json_kind('doc_fields', 'is_approximate') }} as is_approximate_kind,
        {{ runlens.json_text('doc_fields', 'is_approximate') }} as is_approximate_text,
        {{ runlens.json_kind('doc_fields', 'approximation') }} as approximation_kind,
        {{ runlens.json_text('doc_fields', 'approximation') }} as approximation,
        {{ runlens.json_kind('doc_fields', 'rank') }} as rank_kind,
        {{ runlens.json_text('doc_fields', 'rank') }} as rank_text,
        {{ runlens.json_kind('doc_fields', 'world_size') }} as world_size_kind,
        {{ runlens.json_text('doc_fields', 'world_size') }} as world_size_text,
        {{ runlens.json_kind('doc_fields', 'collective_sections') }} as collective_sections_kind,
        {{ runlens.json_value('doc_fields', 'collective_sections') }} as collective_sections,
        {{ runlens.json_kind('doc_fields', 'gpu') }} as gpu_kind,
        {{ runlens.json_text('doc_fields', 'gpu') }} as gpu_text,
        {{ runlens.json_kind('doc_fields', 'host') }} as host_kind,
        {{ runlens.json_text('doc_fields', 'host') }} as host_text,
        {{ runlens.json_kind('doc_fields', 'measurements') }} as measurements_kind,
        {{ runlens.json_value('doc_fields', 'measurements') }} as measurements,
        {{ runlens.json_kind('doc_fields', 'units') }} as units_kind,
        {{ runlens.json_value('doc_fields', 'units') }} as units
    from documents
),

typed as {{ runlens.materialized_cte() }} (
    select
        *,
        {{ runlens.canonical_event_type('event_name') }} as event_type,
        {{ runlens.utc_timestamp('ts_kind', 'ts_text') }} as event_at,
        case when step_kind = 'integer' then {{ runlens.try_to_bigint('step_text') }} end as step,
        case when epoch_kind = 'integer' then {{ runlens.try_to_bigint('epoch_text') }} end as epoch,
        case when rank_kind = 'integer' then {{ runlens.try_to_bigint('rank_text') }} end as rank,
        case when world_size_kind = 'integer' then {{ runlens.try_to_bigint('world_size_text') }} end as world_size,
        case
            when wall_seconds_kind in ('integer', 'number') then {{ runlens.try_to_double('wall_seconds_text') }}
        end as profile_wall_seconds
    from fields
),

classified as {{ runlens.materialized_cte() }} (
    select
        typed.*,
        case
            when typed.line_number = 0 or typed.is_blank then null
            when typed.is_invalid_utf8 then 'invalid_utf8'
            when typed.doc is null then 'invalid_json'
            when not typed.is_object then 'not_object'
            when coalesce(typed.run_id_kind, '') != 'string' or typed.run_id = '' then 'missing_run_id'
            when coalesce(typed.event_kind, '') != 'string' then 'missing_event'
            when typed.event_at is null then 'bad_ts'
            -- another type: an other event (no reject) unless of no sensible form or a likely typo
            when not {{ runlens.is_runlens_event_type('typed.event_type') }}
                then
                    case
                        when not {{ runlens.is_sensible_event_name('typed.event_type') }} then 'unknown_event'
                        when {{ runlens.resembled_event_type('typed.event_type') }} is not null then 'unknown_event'
                    end
            -- rank and world_size are optional; when given they must say which process wrote the line
            when
                (coalesce(typed.rank_kind, 'null') != 'null' and coalesce(typed.rank, -1) < 0)
                or (coalesce(typed.world_size_kind, 'null') != 'null' and coalesce(typed.world_size, 0) < 1)
                or typed.rank >= typed.world_size
                then 'bad_rank'
            when typed.event_type = 'checkpoint' and typed.step is null then 'missing_step'
            when
                typed.event_type = 'run_start'
                and (
                    coalesce(typed.collection_kind, '') != 'string' or typed.collection = ''
                    or coalesce(typed.task_kind, '') != 'string' or typed.task = ''
                )
                then 'missing_run_fields'
            when
                typed.event_type = 'profile'
                and (
                    typed.profile_wall_seconds is null
                    or typed.profile_wall_seconds < 0
                    or not {{ runlens.is_finite_number('typed.profile_wall_seconds') }}
                    or typed.sections_kind not in ('object', 'null')
                    or (
                        typed.sections_kind = 'object'
                        and not {{ runlens.is_object_of_non_negative_numbers('typed.sections') }}
                    )
                )
                then 'bad_profile'
        end as reject_reason
    from typed
),

kinds as (
    select
        *,
        case
            when line_number = 0 or is_blank or reject_reason is not null then false
            else not {{ runlens.is_runlens_event_type('event_type') }}
        end as is_other_event
    from classified
),

event_lines as (
    select
        file_path,
        file_fingerprint,
        line_number,
        is_blank,
        reject_reason,
        is_other_event,
        -- the text of a line some mart shows (a sample's: fct_rejected_lines reads the raw line)
        case when reject_reason is not null or is_other_event then raw_text end as raw_text,
        case when reject_reason is null then run_id end as run_id,
        -- the run a rejected line names, so a page of that run's collection counts the loss
        case
            when reject_reason is not null and run_id_kind = 'string' and run_id != '' then run_id
        end as rejected_run_id,
        case
            when reject_reason is null or reject_reason = 'unknown_event' then event_type
        end as event_type,
        case
            when reject_reason = 'unknown_event' and {{ runlens.is_sensible_event_name('event_type') }}
                then {{ runlens.resembled_event_type('event_type') }}
        end as resembles_event_type,
        case when reject_reason is null then event_at end as event_at,
        case when reject_reason is null then step end as step,
        case when reject_reason is null then epoch end as epoch,
        case when reject_reason is null then rank end as rank,
        case when reject_reason is null then world_size end as world_size,
        case when reject_reason is null and event_type = 'run_start' then collection end as collection,
        case when reject_reason is null and event_type = 'run_start' then task end as task,
        case
            when reject_reason is null and event_type = 'run_start' and config_kind = 'object' then config
        end as config,
        case
            when reject_reason is null and event_type = 'run_start' and resources_kind = 'object' then resources
        end as resources,
        case
            when reject_reason is null and event_type = 'run_end' then coalesce(run_end_status, 'completed')
        end as run_end_status,
        case when reject_reason is null and event_type = 'profile' then profile_wall_seconds end
            as profile_wall_seconds,
        case
            when reject_reason is null and event_type = 'profile' and sections_kind = 'object' then sections
        end as profile_sections,
        case
            when reject_reason is null and event_type = 'profile'
                then not coalesce(final_kind = 'boolean' and final_text = 'false', false)
        end as profile_is_final,
        case
            when reject_reason is null and event_type = 'profile' and collective_sections_kind = 'array'
                then collective_sections
        end as profile_collective_sections,
        case when reject_reason is null and source_format_kind = 'string' then source_format end as source_format,
        case when reject_reason is null and source_path_kind = 'string' then source_path end as source_path,
        reject_reason is null and is_approximate_kind = 'boolean' and is_approximate_text = 'true' as is_approximate,
        case
            when reject_reason is null and approximation_kind = 'string' and is_approximate_text = 'true'
                then approximation
        end as approximation,
        -- a valid sample's own fields as this parse read them, so that int_utilization_samples
        -- checks them without parsing the line again
        case when reject_reason is null and event_type = 'sample' then gpu_kind end as sample_gpu_kind,
        case when reject_reason is null and event_type = 'sample' then gpu_text end as sample_gpu_text,
        case when reject_reason is null and event_type = 'sample' then host_kind end as sample_host_kind,
        case when reject_reason is null and event_type = 'sample' then host_text end as sample_host_text,
        case when reject_reason is null and event_type = 'sample' then measurements_kind end
            as sample_measurements_kind,
        case when reject_reason is null and event_type = 'sample' then measurements end as sample_measurements,
        case when reject_reason is null and event_type = 'sample' then units_kind end as sample_units_kind,
        case when reject_reason is null and event_type = 'sample' then units end as sample_units,
        size_bytes,
        modified_at,
        is_gzip,
        read_error,
        case when line_number = 0 then {{ runlens.string_literal(runlens.event_aliases_text()) }} end as event_aliases
    from kinds
),

final as (
    select
        file_path,
        file_fingerprint,
        line_number,
        {{ runlens.build_started_at() }} as loaded_at,
        is_blank,
        reject_reason,
        is_other_event,
        raw_text,
        run_id,
        rejected_run_id,
        event_type,
        resembles_event_type,
        event_at,
        step,
        epoch,
        rank,
        world_size,
        collection,
        task,
        config,
        resources,
        run_end_status,
        profile_wall_seconds,
        profile_sections,
        profile_is_final,
        profile_collective_sections,
        source_format,
        source_path,
        is_approximate,
        approximation,
        sample_gpu_kind,
        sample_gpu_text,
        sample_host_kind,
        sample_host_text,
        sample_measurements_kind,
        sample_measurements,
        sample_units_kind,
        sample_units,
        size_bytes,
        modified_at,
        is_gzip,
        read_error,
        event_aliases
    from event_lines
)

select * from final
