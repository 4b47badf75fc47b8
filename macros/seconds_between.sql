{#- Seconds from one timestamp to another, to the microsecond, as a double. -#}
{% macro seconds_between(from_ts, to_ts) -%}
    ({{ dbt.datediff(from_ts, to_ts, 'microsecond') }} / 1000000.0)
{%- endmacro %}
