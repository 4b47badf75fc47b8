{#- Incremental bookkeeping. A model that keeps rows per raw file (or per run) deletes, before it
    runs, the rows whose file (run) is gone or has a new fingerprint; it then computes only the
    files (runs) it has no rows for. So new and changed inputs are recomputed whole, removed ones
    leave, and nothing is duplicated. -#}

{#- Pre-hook: forget the rows of files that are gone from the raw folder or changed since. -#}
{% macro delete_rows_of_changed_files() -%}
    {% if is_incremental() -%}
        delete from {{ this }}
        where file_path || '|' || file_fingerprint not in (
            select files.file_path || '|' || files.file_fingerprint from {{ ref('stg_raw_files') }} as files
        )
    {%- endif %}
{%- endmacro %}

{#- Pre-hook: forget the rows of runs that are gone or whose events changed since. -#}
{% macro delete_rows_of_changed_runs() -%}
    {% if is_incremental() -%}
        delete from {{ this }}
        where run_id || '|' || run_fingerprint not in (
            select runs.run_id || '|' || runs.run_fingerprint from {{ ref('int_run_fingerprints') }} as runs
        )
    {%- endif %}
{%- endmacro %}

{#- Filter: true for the runs this model must (re)compute: every run on a full build, the runs
    it has no rows for on an incremental one. -#}
{% macro is_run_to_compute(run_id_column) -%}
    {% if is_incremental() -%}
        {{ run_id_column }} not in (select distinct computed.run_id from {{ this }} as computed)
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}

{#- Filter: true for the raw files this model must (re)parse: every file on a full build, the files
    it has no rows for on an incremental one. -#}
{% macro is_file_to_parse(file_path_column) -%}
    {% if is_incremental() -%}
        {{ file_path_column }} not in (select distinct parsed.file_path from {{ this }} as parsed)
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}
