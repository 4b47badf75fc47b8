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

{#- The nearest-rank percentile (def_percentiles): the value at rank ceil(percent / 100 * n) of a
    group's n values sorted ascending, i.e. the least value whose rank r satisfies
    r * 100 >= percent * n. Plain SQL, the same on every engine (their own percentile functions
    interpolate differently); integer arithmetic, so no rounding decides the rank. The caller
    numbers the values 1..n in ascending order (rank_column, row_number) and gives their count
    (count_column, count(*) over the same partition); `percent` is an integer from 1 to 100. -#}
{% macro nearest_rank_percentile(value_column, rank_column, count_column, percent) -%}
    min(case when {{ rank_column }} * 100 >= {{ percent }} * {{ count_column }} then {{ value_column }} end)
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

{#- Spark: median is the exact percentile 0.5, interpolated (not the approximate percentile). -#}
{% macro spark__median(column) -%}
    median({{ column }})
{%- endmacro %}

{#- Spark: bit_xor of a 64-bit xxhash of the columns as text (a variant as its JSON text). -#}
{% macro spark__unordered_hash(columns) -%}
    cast(bit_xor(xxhash64({% for column in columns %}cast({{ column }} as string){% if not loop.last %}, {% endif %}{% endfor %})) as string)
{%- endmacro %}

{#- Spark: dbt-spark's listagg ignores its order by clause (collect_list has no order), so runlens
    overrides it on Spark (dbt_project.yml `dispatch`): the values are collected with their sort
    key, sorted, and joined. Only `order by <expression> [asc]` is supported. -#}
{% macro spark__listagg(measure, delimiter_text, order_by_clause, limit_num) -%}
    {%- set order_expression = none -%}
    {%- if order_by_clause -%}
        {%- set matched = modules.re.match('^\\s*order\\s+by\\s+(.+?)(\\s+asc)?\\s*$', order_by_clause, modules.re.IGNORECASE) -%}
        {%- if matched is none -%}
            {{ exceptions.raise_compiler_error("runlens: listagg on Spark supports only 'order by <expression> [asc]', not " ~ order_by_clause) }}
        {%- endif -%}
        {%- set order_expression = matched.group(1) -%}
    {%- endif -%}
    {%- if order_expression is none -%}
        {%- set collected = "collect_list(" ~ measure ~ ")" -%}
    {%- else -%}
        {%- set collected = "transform(array_sort(collect_list(named_struct('sort_key', " ~ order_expression ~ ", 'item', " ~ measure ~ "))), sorted_entry -> sorted_entry.item)" -%}
    {%- endif -%}
    {%- if limit_num -%}
        {%- set collected = "slice(" ~ collected ~ ", 1, " ~ limit_num ~ ")" -%}
    {%- endif -%}
    array_join({{ collected }}, {{ delimiter_text }})
{%- endmacro %}
