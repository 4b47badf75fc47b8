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

{#- Percentiles by one rule on every engine (def_percentiles in models/marts/live/_live__docs.md),
    written out in SQL rather than left to each engine's percentile functions: of the n values of a
    group sorted x_1 <= ... <= x_n, the p-th percentile is (1 - f) * x_k + f * x_(k+1), where
    h = (n - 1) * p, k = floor(h) + 1 and f = h - floor(h) (linear interpolation between order
    statistics; p = 0.5 is the median). A query over `relation` with one row per group of the
    `partition_by` columns: those columns, `<prefix>values` (how many non-NULL values) and one
    column per (name, p) pair of `percentiles`. NULL values are left out. -#}
{% macro interpolated_percentiles_query(relation, partition_by, value, percentiles, prefix='') -%}
    {%- set groups = partition_by | join(', ') -%}
    select
        {% for column in partition_by %}ranked.{{ column }},
        {% endfor -%}
        count(*) as {{ prefix }}values,
        {%- for name, fraction in percentiles %}
        {%- set position = "cast(ranked.value_count - 1 as " ~ var("runlens_types")[target.type].double ~ ") * cast(" ~ fraction ~ " as " ~ var("runlens_types")[target.type].double ~ ")" %}
        sum(
            case
                when ranked.value_rank = floor({{ position }}) + 1
                    then ranked.percentile_value * (1 - ({{ position }} - floor({{ position }})))
                when ranked.value_rank = floor({{ position }}) + 2
                    then ranked.percentile_value * ({{ position }} - floor({{ position }}))
                else 0
            end
        ) as {{ name }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    from (
        select
            {{ groups }},
            {{ value }} as percentile_value,
            row_number() over (partition by {{ groups }} order by {{ value }}) as value_rank,
            count(*) over (partition by {{ groups }}) as value_count
        from {{ relation }}
        where {{ value }} is not null
    ) as ranked
    group by {% for column in partition_by %}ranked.{{ column }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endmacro %}
