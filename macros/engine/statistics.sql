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

{#- The p-quantile (0 <= p <= 1) of a numeric column over a group, by linear interpolation between
    the order statistics (def_percentiles): with the n values sorted, the value at rank
    h = 1 + (n - 1) * p, interpolated between ranks floor(h) and ceil(h). DuckDB's quantile_cont,
    PostgreSQL's percentile_cont and Spark's exact percentile all compute this rule. -#}
{% macro percentile(column, p) -%}
    {{ return(adapter.dispatch('percentile', 'runlens')(column, p)) }}
{%- endmacro %}

{% macro duckdb__percentile(column, p) -%}
    quantile_cont({{ column }}, {{ p }})
{%- endmacro %}

{% macro postgres__percentile(column, p) -%}
    percentile_cont({{ p }}) within group (order by {{ column }})
{%- endmacro %}

{% macro spark__percentile(column, p) -%}
    percentile({{ column }}, {{ p }})
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

{#- A 64-bit hash of one row's columns (NULLs included), to find rows that may be equal by one
    number instead of by every column: equal rows hash equal; rows that hash equal need not be
    equal, so a model compares their columns after (int_event_occurrences). -#}
{% macro row_hash(columns) -%}
    {{ return(adapter.dispatch('row_hash', 'runlens')(columns)) }}
{%- endmacro %}

{% macro duckdb__row_hash(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}

{#- PostgreSQL: concat_ws skips a NULL, so a NULL and a missing value hash alike: more rows
    compared after, none missed. -#}
{% macro postgres__row_hash(columns) -%}
    hashtextextended(concat_ws('|', {% for column in columns %}{{ column }}::text{% if not loop.last %}, {% endif %}{% endfor %}), 0)
{%- endmacro %}

{% macro spark__row_hash(columns) -%}
    xxhash64({{ columns | join(', ') }})
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

{#- Aggregate: the value on the row whose keys are greatest, compared in order (the first key,
    then the next on a tie), as a window's first row under `order by key1 desc, key2 desc` would
    give, without sorting the rows; the value may be NULL, the keys are never NULL. -#}
{% macro arg_max(value, keys) -%}
    {{ return(adapter.dispatch('arg_max', 'runlens')(value, keys)) }}
{%- endmacro %}

{% macro duckdb__arg_max(value, keys) -%}
    arg_max_null({{ value }}, row({{ keys | join(', ') }}))
{%- endmacro %}

{% macro postgres__arg_max(value, keys) -%}
    (array_agg({{ value }} order by {{ keys | join(' desc, ') }} desc))[1]
{%- endmacro %}

{% macro spark__arg_max(value, keys) -%}
    max_by({{ value }}, struct({{ keys | join(', ') }}))
{%- endmacro %}
