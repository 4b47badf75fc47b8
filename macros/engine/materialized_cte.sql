{#- Written between `name as` and the opening bracket of a CTE (`parsed as {{ runlens.materialized_cte() }}(`).
    PostgreSQL inlines a CTE that is referenced once, and then evaluates each of its expressions
    again wherever a later CTE reads the column (in the line parse, every line's JSON was parsed
    some thirty times): `materialized` computes the CTE once. DuckDB (which does not recompute)
    and Spark (which has no such syntax) get nothing. -#}
{% macro materialized_cte() -%}
    {{ return(adapter.dispatch('materialized_cte', 'runlens')()) }}
{%- endmacro %}

{% macro default__materialized_cte() -%}
{%- endmacro %}

{% macro postgres__materialized_cte() -%}
    materialized {% endmacro %}
