{#- The median of a numeric column; an even count gives the mean of the two middle values. -#}
{% macro median(column) -%}
    {{ return(adapter.dispatch('median', 'runlens')(column)) }}
{%- endmacro %}

{% macro duckdb__median(column) -%}
    quantile_cont({{ column }}, 0.5)
{%- endmacro %}

{% macro postgres__median(column) -%}
    percentile_cont(0.5) within group (order by {{ column }})
{%- endmacro %}

{#- A group's measurement source from its runs' sources (def_measurement_source). -#}
{% macro measurement_source_of(column) -%}
    case
        when count(distinct {{ column }}) > 1 then 'mixed'
        else min({{ column }})
    end
{%- endmacro %}

{#- An aggregate hash of the given columns over a group's rows, independent of row order. -#}
{% macro unordered_hash(columns) -%}
    {{ return(adapter.dispatch('unordered_hash', 'runlens')(columns)) }}
{%- endmacro %}

{% macro duckdb__unordered_hash(columns) -%}
    bit_xor(hash({% for column in columns %}{{ column }}::varchar{% if not loop.last %}, {% endif %}{% endfor %}))::varchar
{%- endmacro %}

{% macro postgres__unordered_hash(columns) -%}
    bit_xor(hashtextextended(concat_ws('|', {% for column in columns %}{{ column }}::text{% if not loop.last %}, {% endif %}{% endfor %}), 0))::text
{%- endmacro %}
