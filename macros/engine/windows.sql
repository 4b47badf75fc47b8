{#- The value of `expression` at the nearest following row of the window (partition_by, ordered by
    order_by) where it is not NULL; NULL when no following row has one. For a value that grows with
    the order (a time), the minimum over the following rows is the same figure: the engines that
    have no IGNORE NULLS for lead compute that. -#}
{% macro next_non_null(expression, partition_by, order_by) -%}
    {{ return(adapter.dispatch('next_non_null', 'runlens')(expression, partition_by, order_by)) }}
{%- endmacro %}

{#- DuckDB: lead with IGNORE NULLS, about 1.6x faster than the minimum over the following rows
    (docs/performance.md, "The raw text in zstd"). -#}
{% macro duckdb__next_non_null(expression, partition_by, order_by) -%}
    lead({{ expression }} ignore nulls) over (partition by {{ partition_by }} order by {{ order_by }})
{%- endmacro %}

{% macro default__next_non_null(expression, partition_by, order_by) -%}
    min({{ expression }}) over (
        partition by {{ partition_by }} order by {{ order_by }}
        rows between 1 following and unbounded following
    )
{%- endmacro %}
