{#- The median of a numeric column; an even count gives the mean of the two middle values. -#}
{% macro median(column) -%}
    {{ return(adapter.dispatch('median', 'runlens')(column)) }}
{%- endmacro %}

{% macro duckdb__median(column) -%}
    quantile_cont({{ column }}, 0.5)
{%- endmacro %}

{#- A group's measurement source from its runs' sources (def_measurement_source). -#}
{% macro measurement_source_of(column) -%}
    case
        when count(distinct {{ column }}) > 1 then 'mixed'
        else min({{ column }})
    end
{%- endmacro %}
