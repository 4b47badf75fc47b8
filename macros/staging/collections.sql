{#- The raw folder's collections file (runlens_collections.csv, or RUNLENS_COLLECTIONS: one reader
    for every engine, runlens/raw_logs/folder_metadata.py), as rows of text columns for
    stg_collections. DuckDB: the dbt-duckdb plugin reads it when the build runs, so pointing a build
    at another folder costs dbt no parsing. PostgreSQL and Spark: scripts/engine_build.py reads it
    and hands the rows over in the dbt var `runlens_collections` (a list of objects with the five
    columns). -#}
{% macro collection_rows() -%}
    {{- return(adapter.dispatch('collection_rows', 'runlens')()) -}}
{%- endmacro %}

{% macro duckdb__collection_rows() -%}
    select unnest(runlens_collections(), recursive := true)
{%- endmacro %}

{% macro default__collection_rows() -%}
    {%- set columns = ['collection', 'title', 'baseline_collection', 'design_url', 'results_url'] -%}
    {%- set rows = var('runlens_collections', []) -%}
    {%- set string = var('runlens_types')[target.type].string -%}
    {%- if rows | length == 0 %}
    select
        {%- for column in columns %}
        cast(null as {{ string }}) as {{ column }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    where 1 = 0
    {%- else -%}
    {%- for row in rows %}
    select
        {%- for column in columns %}
        {%- set value = row.get(column) %}
        cast({% if value is none %}null{% else %}{{ runlens.string_literal(value | string) }}{% endif %} as {{ string }}) as {{ column }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
    {%- endif %}
{%- endmacro %}
