{#- Numeric types and safe conversions, chosen by adapter.dispatch. dbt's type_float is 4 bytes on
    DuckDB and Spark but 8 on PostgreSQL, and safe_cast is not safe everywhere, so runlens says
    what it means here. -#}

{#- An 8-byte float. -#}
{% macro type_double() -%}
    {{ return(adapter.dispatch('type_double', 'runlens')()) }}
{%- endmacro %}

{% macro default__type_double() -%}double{%- endmacro %}

{% macro postgres__type_double() -%}double precision{%- endmacro %}

{#- Text to bigint, NULL when it is not an integer that fits. -#}
{% macro try_to_bigint(text) -%}
    {{ return(adapter.dispatch('try_to_bigint', 'runlens')(text)) }}
{%- endmacro %}

{% macro duckdb__try_to_bigint(text) -%}
    try_cast({{ text }} as bigint)
{%- endmacro %}

{% macro postgres__try_to_bigint(text) -%}
    {{ target.schema }}.runlens_try_bigint({{ text }})
{%- endmacro %}

{#- Text to an 8-byte float, NULL when it is not a number. -#}
{% macro try_to_double(text) -%}
    {{ return(adapter.dispatch('try_to_double', 'runlens')(text)) }}
{%- endmacro %}

{% macro duckdb__try_to_double(text) -%}
    try_cast({{ text }} as double)
{%- endmacro %}

{% macro postgres__try_to_double(text) -%}
    {{ target.schema }}.runlens_try_double({{ text }})
{%- endmacro %}

{#- True when a double is neither infinite nor NaN. -#}
{% macro is_finite_number(value) -%}
    {{ return(adapter.dispatch('is_finite_number', 'runlens')(value)) }}
{%- endmacro %}

{% macro duckdb__is_finite_number(value) -%}
    isfinite({{ value }})
{%- endmacro %}

{% macro postgres__is_finite_number(value) -%}
    ({{ value }} not in ('Infinity'::double precision, '-Infinity'::double precision, 'NaN'::double precision))
{%- endmacro %}

{#- Spark: dbt-spark turns ANSI mode off, where a plain cast truncates ('1.5' -> 1) or overflows;
    try_cast keeps the strict conversion and gives NULL instead of an error. -#}
{% macro spark__try_to_bigint(text) -%}
    try_cast({{ text }} as bigint)
{%- endmacro %}

{% macro spark__try_to_double(text) -%}
    try_cast({{ text }} as double)
{%- endmacro %}

{% macro spark__is_finite_number(value) -%}
    (not isnan({{ value }}) and abs({{ value }}) != double('infinity'))
{%- endmacro %}
