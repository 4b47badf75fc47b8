{#- Seconds from one timestamp to another, to the microsecond, as an 8-byte float: the exact
    difference in microseconds divided by 10^6, correctly rounded on every engine. -#}
{% macro seconds_between(from_ts, to_ts) -%}
    {{ return(adapter.dispatch('seconds_between', 'runlens')(from_ts, to_ts)) }}
{%- endmacro %}

{% macro duckdb__seconds_between(from_ts, to_ts) -%}
    ({{ dbt.datediff(from_ts, to_ts, 'microsecond') }} / 1000000.0)
{%- endmacro %}

{#- extract(epoch from an interval) is exact (numeric) on PostgreSQL 14 and later. -#}
{% macro postgres__seconds_between(from_ts, to_ts) -%}
    (extract(epoch from ({{ to_ts }}) - ({{ from_ts }})))::double precision
{%- endmacro %}

{#- Spark: unix_micros is exact; the bigint difference over 10^6 as a double is correctly rounded. -#}
{% macro spark__seconds_between(from_ts, to_ts) -%}
    ((unix_micros({{ to_ts }}) - unix_micros({{ from_ts }})) / 1000000.0D)
{%- endmacro %}

{#- A timestamp plus a number of seconds (a double), rounded to the microsecond (halves up). -#}
{% macro add_seconds(ts, seconds) -%}
    {{ return(adapter.dispatch('add_seconds', 'runlens')(ts, seconds)) }}
{%- endmacro %}

{% macro duckdb__add_seconds(ts, seconds) -%}
    ({{ ts }} + to_microseconds(cast(floor(({{ seconds }}) * 1000000 + 0.5) as bigint)))
{%- endmacro %}

{% macro postgres__add_seconds(ts, seconds) -%}
    ({{ ts }} + cast(floor(({{ seconds }}) * 1000000 + 0.5) as bigint) * interval '1 microsecond')
{%- endmacro %}

{% macro spark__add_seconds(ts, seconds) -%}
    timestamp_micros(unix_micros({{ ts }}) + cast(floor(({{ seconds }}) * 1000000 + 0.5) as bigint))
{%- endmacro %}

{#- A number of seconds rounded to the microsecond (halves up), the resolution of every timestamp:
    a sum or difference of exact interval lengths, computed in floating point, comes back to its
    exact value (a part that is 0 by definition is 0, not a float leftover such as 1e-13). -#}
{% macro whole_microseconds(seconds) -%}
    {%- set double = var('runlens_types')[target.type].double -%}
    (cast(floor(({{ seconds }}) * 1000000 + 0.5) as {{ double }}) / cast(1000000 as {{ double }}))
{%- endmacro %}
