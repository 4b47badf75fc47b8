{#- Every rule a table's rows must keep, in one query: one dbt node per table instead of one per
    rule and column (each node costs dbt its own bookkeeping, whatever its SQL). The rules, each
    optional:
      key             columns that are unique together and never NULL (primary_key)
      not_null        columns that are never NULL (not_null_columns)
      not_negative    columns that are never below zero (not_negative)
      accepted_values {column: [values]}: a non-NULL value is one of them (dbt's accepted_values)
      matches         {column: {to: ref(...), field: ...}}: a non-NULL value is some row's field
                      there (dbt's relationships, has_match)
    Each failing row names its rule, its column (or key) and the value that breaks it. With
    `changed`, only the rows this build wrote are checked, for every rule
    (macros/tests_on_changes.sql): rules that differ in it are two nodes. -#}
{% test table_rules(model, key=none, not_null=none, not_negative=none, accepted_values=none, matches=none, changed=none) %}
{%- set string = dbt.type_string() %}
with

checked as (
    select * from {{ model }}
    where {{ runlens.changed_in_this_build(changed) }}
),

failures as (
    select
        cast(null as {{ string }}) as rule,
        cast(null as {{ string }}) as column_name,
        cast(null as {{ string }}) as failing_value
    from checked
    where false
    {%- if key %}
    union all
    select
        'key' as rule,
        '{{ key | join(", ") }}' as column_name,
        {% for column in key %}coalesce(cast({{ column }} as {{ string }}), 'NULL'){% if not loop.last %} || ', ' || {% endif %}{% endfor %} as failing_value
    from checked
    group by {{ key | join(', ') }}
    having
        count(*) > 1
        {%- for column in key %}
        or {{ column }} is null
        {%- endfor %}
    {%- endif %}
    {%- for column in not_null or [] %}
    union all
    select
        'not_null' as rule,
        '{{ column }}' as column_name,
        'NULL' as failing_value
    from checked
    where {{ column }} is null
    {%- endfor %}
    {%- for column in not_negative or [] %}
    union all
    select
        'not_negative' as rule,
        '{{ column }}' as column_name,
        cast({{ column }} as {{ string }}) as failing_value
    from checked
    where {{ column }} < 0
    {%- endfor %}
    {%- for column, values in (accepted_values or {}).items() %}
    union all
    select
        'accepted_values' as rule,
        '{{ column }}' as column_name,
        cast({{ column }} as {{ string }}) as failing_value
    from checked
    where
        {{ column }} is not null
        and {{ column }} not in ({% for value in values %}{{ runlens.string_literal(value) }}{% if not loop.last %}, {% endif %}{% endfor %})
    {%- endfor %}
    {%- for column, target in (matches or {}).items() %}
    union all
    select
        'matches' as rule,
        '{{ column }}' as column_name,
        cast(children.{{ column }} as {{ string }}) as failing_value
    from checked as children
    left join {{ target['to'] }} as parents on children.{{ column }} = parents.{{ target['field'] }}
    where children.{{ column }} is not null and parents.{{ target['field'] }} is null
    {%- endfor %}
)

select * from failures
{% endtest %}
