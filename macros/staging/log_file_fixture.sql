{#- For unit tests of stg_log_lines, in SQL that every engine reads the same way:
    log_file_fixture gives one row of the source runlens_raw.log_files for a file named file_path;
    log_lines_fixture the rows of runlens_raw.log_lines for that file's lines as the reader writes
    them (raw_tables.py): numbered from 1, the lines listed in invalid_line_numbers already in
    their escaped form, a line of only space, tab, VT, FF and CR blank. -#}
{% macro log_file_fixture(file_path) -%}
    select
        {{ runlens.string_literal(file_path) }} as file_path,
        {{ runlens.string_literal(file_path) }} as absolute_path,
        cast(1 as {{ dbt.type_bigint() }}) as size_bytes,
        cast('2025-01-01 00:00:00' as {{ dbt.type_timestamp() }}) as modified_at,
        false as is_gzip,
        '1:1' as file_fingerprint,
        cast(null as {{ dbt.type_string() }}) as read_error,
        cast('2025-01-01 00:00:00' as {{ dbt.type_timestamp() }}) as loaded_at
{%- endmacro %}

{% macro log_lines_fixture(file_path, lines, invalid_line_numbers=[]) -%}
    {%- for line in lines %}
    select
        {{ runlens.string_literal(file_path) }} as file_path,
        '1:1' as file_fingerprint,
        cast({{ loop.index }} as {{ dbt.type_bigint() }}) as line_number,
        {{ runlens.string_literal(line) }} as text,
        {{ 'true' if loop.index in invalid_line_numbers else 'false' }} as is_invalid_utf8,
        {{ 'true' if loop.index not in invalid_line_numbers and line.strip(' \t\x0b\x0c\r') == '' else 'false' }} as is_blank
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
{%- endmacro %}

{#- A string as an SQL literal. -#}
{% macro string_literal(value) -%}
    {{ return(adapter.dispatch('string_literal', 'runlens')(value)) }}
{%- endmacro %}

{% macro default__string_literal(value) -%}
    '{{ value | replace("'", "''") }}'
{%- endmacro %}

{#- Spark reads a backslash in a literal as an escape. -#}
{% macro spark__string_literal(value) -%}
    '{{ value | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
