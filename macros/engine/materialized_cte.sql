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

{#- Written between `name as` and the opening bracket of an import CTE that later CTEs read more than
    once (`markers as {{ runlens.streamed_cte() }} (`). DuckDB materializes a CTE referenced more
    than once: for an import CTE (a table's rows, filtered) that copies the table before anything
    is done with it, which under the memory limit spills. `not materialized` has each reader scan
    the table itself. Over the 200k benchmark's database with a fifth of the memory limit (as the
    1M build has it), int_run_intervals took 2.9-3.0 s against 4.2-4.4 s, int_run_sessions
    0.8 s against 1.2-1.4 s (docs/performance.md). So too for a join of such rows that two later
    CTEs read (fct_run_stragglers' positioned): doing the join again costs less than holding its
    rows. PostgreSQL (whose default is kept) and Spark get nothing. -#}
{% macro streamed_cte() -%}
    {{ return(adapter.dispatch('streamed_cte', 'runlens')()) }}
{%- endmacro %}

{% macro default__streamed_cte() -%}
{%- endmacro %}

{% macro duckdb__streamed_cte() -%}
    not materialized {% endmacro %}
