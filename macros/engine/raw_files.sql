{#- Where the raw files and lines come from, chosen by adapter.dispatch. DuckDB reads the files in
    Python models (models/staging/raw_duckdb); these macros serve the SQL models in
    models/staging/raw_sql, which have the same columns:
      stg_raw_files: file_path, absolute_path, size_bytes, modified_at, is_gzip, file_fingerprint
      stg_raw_lines: file_path, file_fingerprint, line_number, line_text, raw_text,
                     is_invalid_utf8, is_blank, read_error -#}

{% macro select_raw_files() -%}
    {{ return(adapter.dispatch('select_raw_files', 'runlens')()) }}
{%- endmacro %}

{% macro select_raw_lines() -%}
    {{ return(adapter.dispatch('select_raw_lines', 'runlens')()) }}
{%- endmacro %}

{#- An engine without its own implementation cannot read the logs yet. (Parsing renders this even
    where the model is disabled, so it only raises when the model really runs.) -#}
{% macro default__select_raw_files() -%}
    {% if execute %}{{ exceptions.raise_compiler_error("runlens cannot read raw logs on " ~ target.type ~ " yet") }}{% endif %}
{%- endmacro %}

{% macro default__select_raw_lines() -%}
    {% if execute %}{{ exceptions.raise_compiler_error("runlens cannot read raw logs on " ~ target.type ~ " yet") }}{% endif %}
{%- endmacro %}

{#- PostgreSQL: scripts/load_raw.py has copied the files' lines from the client (COPY), split and
    decoded exactly as on DuckDB, and keeps them in step with the raw folder by fingerprint. -#}
{% macro postgres__select_raw_files() -%}
    select
        file_path,
        absolute_path,
        size_bytes,
        modified_at,
        is_gzip,
        file_fingerprint
    from {{ source('runlens_raw', 'raw_files') }}
{%- endmacro %}

{% macro postgres__select_raw_lines() -%}
    select
        file_path,
        file_fingerprint,
        line_number,
        line_text,
        raw_text,
        is_invalid_utf8,
        is_blank,
        read_error
    from {{ source('runlens_raw', 'raw_lines') }}
{%- endmacro %}
