{#- Written between `name as` and the opening bracket of a CTE whose columns are expensive and read
    many times further down (`parsed as {{ runlens.materialized_cte() }}(`).
    PostgreSQL inlines a CTE that is referenced once, and then evaluates each of its expressions
    again wherever a later CTE reads the column: in stg_event_lines every line's JSON was parsed
    some thirty times (8 ms a line). `materialized` computes the CTE once (3,000 lines: 23.4 s
    down to 0.19 s). DuckDB does not show that cost (about 5 s for the whole model at 1M lines)
    and Spark has no such syntax, so both get nothing. -#}
{% macro materialized_cte() -%}
    {{ return(adapter.dispatch('materialized_cte', 'runlens')()) }}
{%- endmacro %}

{% macro default__materialized_cte() -%}
{%- endmacro %}

{% macro postgres__materialized_cte() -%}
    materialized {% endmacro %}
