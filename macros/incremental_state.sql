{#- Incremental bookkeeping. stg_log_lines keeps rows per raw file: before it runs, it deletes the
    rows of files that are gone from the raw folder or have a new fingerprint, then reads only the
    files it has no rows for; new and changed files are read whole, removed ones leave, nothing is
    duplicated. Every row carries loaded_at, when the build that read it started. -#}

{#- When the reading behind this build began (UTC; stg_build_context), the same in every model of a
    build: read from the database when the build runs, so the compiled SQL of a build holds no
    time of its own. -#}
{% macro build_started_at() -%}
    (select build_context.build_started_at from {{ ref('stg_build_context') }} as build_context)
{%- endmacro %}

{#- Pre-hook of stg_log_lines: forget the rows of files that are gone or changed since. -#}
{% macro delete_rows_of_changed_files() -%}
    {% if is_incremental() -%}
        delete from {{ this }}
        where file_path in (
            -- an anti-join, not a correlated NOT EXISTS: DuckDB would list the folder (the
            -- plugin's function) once per file read before
            select read_files.file_path
            from {{ this }} as read_files
            left join {{ source('runlens_raw', 'log_files') }} as log_files
                on
                    read_files.file_path = log_files.file_path
                    and read_files.file_fingerprint = log_files.file_fingerprint
            where read_files.line_number = 0 and log_files.file_path is null
            union all
            -- read with other event aliases: every line's type may differ now
            select read_files.file_path
            from {{ this }} as read_files
            where
                read_files.line_number = 0
                and coalesce(read_files.event_aliases, '') != {{ runlens.string_literal(runlens.event_aliases_text()) }}
        )
    {%- endif %}
{%- endmacro %}

{#- Filter: true for the files stg_log_lines must read: every file on a full build, the files it
    has no rows for on an incremental one (their file record, line 0, is there once read). -#}
{% macro is_file_to_read(file_path_column, file_fingerprint_column) -%}
    {% if is_incremental() -%}
        {{ file_path_column }} not in (select read_files.file_path from {{ this }} as read_files where read_files.line_number = 0)
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}
