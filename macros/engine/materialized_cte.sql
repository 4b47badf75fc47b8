{#- Written between `name as` and the opening bracket of a CTE (`parsed as {{ runlens.materialized_cte() }}(`).
    PostgreSQL inlines a CTE that is referenced once, and then evaluates each of its expressions
    again wherever a later CTE reads the column (in the line parse, every line's JSON was parsed
    some thirty times): `materialized` computes the CTE once. With everywhere=true the CTE is
    materialized on DuckDB too: a CTE fed by few rows (the texts of a few files, split into
    lines by unnest) would otherwise run every later step on one thread. Spark has no such syntax,
    so it gets nothing. -#}
{% macro materialized_cte(everywhere=false) -%}
    {{ return(adapter.dispatch('materialized_cte', 'runlens')(everywhere)) }}
{%- endmacro %}

{% macro default__materialized_cte(everywhere) -%}
{%- endmacro %}

{% macro duckdb__materialized_cte(everywhere) -%}
    {% if everywhere %}materialized {% endif %}
{%- endmacro %}

{% macro postgres__materialized_cte(everywhere) -%}
    materialized {% endmacro %}

{#- Written at the end of a materialized CTE's select that later steps read in bulk: on DuckDB the
    rows are sorted, which ends the pipeline there, so what follows runs on every thread (a
    materialized CTE alone was still read by one), and the table written later comes out in this
    order. Nothing elsewhere. -#}
{% macro order_for_parallel_scan(columns) -%}
    {{ return(adapter.dispatch('order_for_parallel_scan', 'runlens')(columns)) }}
{%- endmacro %}

{% macro default__order_for_parallel_scan(columns) -%}
{%- endmacro %}

{% macro duckdb__order_for_parallel_scan(columns) -%}
    order by {{ columns }}
{%- endmacro %}
