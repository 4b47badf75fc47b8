{#- For unit tests of stg_log_lines: one row of the source runlens_logs.log_files for a file
    named file_path whose text is the given lines (joined by LF, with a final LF), the lines
    listed in invalid_line_numbers written in their escaped form as the reader writes them.
    Written in SQL that every engine reads the same way. -#}
{% macro log_file_fixture(file_path, lines, invalid_line_numbers=[]) -%}
    select
        {{ runlens.string_literal(file_path) }} as file_path,
        {{ runlens.string_literal(file_path) }} as absolute_path,
        cast(1 as {{ dbt.type_bigint() }}) as size_bytes,
        cast('2025-01-01 00:00:00' as {{ dbt.type_timestamp() }}) as modified_at,
        false as is_gzip,
        '1:1' as file_fingerprint,
        {{ runlens.string_literal(lines | join('\n') ~ '\n') }} as text,
        {{ runlens.bigint_array_literal(invalid_line_numbers) }} as invalid_line_numbers,
        cast(null as {{ dbt.type_string() }}) as read_error
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

{#- A list of integers as an SQL array of bigints. -#}
{% macro bigint_array_literal(numbers) -%}
    {{ return(adapter.dispatch('bigint_array_literal', 'runlens')(numbers)) }}
{%- endmacro %}

{% macro duckdb__bigint_array_literal(numbers) -%}
    cast([{{ numbers | join(', ') }}] as bigint[])
{%- endmacro %}

{% macro postgres__bigint_array_literal(numbers) -%}
    cast(array[{{ numbers | join(', ') }}]::bigint[] as bigint[])
{%- endmacro %}

{% macro spark__bigint_array_literal(numbers) -%}
    cast(array({{ numbers | join(', ') }}) as array<bigint>)
{%- endmacro %}
