{#- Fails for every value of the key columns that is NULL in any of them or occurs more than once:
    unique and not null in one scan. With `changed`, only the rows this build wrote
    (macros/tests_on_changes.sql). -#}
{% test primary_key(model, columns, changed=none) %}
select
    {{ columns | join(', ') }},
    count(*) as occurrences
from {{ model }}
where {{ runlens.changed_in_this_build(changed) }}
group by {{ columns | join(', ') }}
having
    count(*) > 1
    {%- for column in columns %}
    or {{ column }} is null
    {%- endfor %}
{% endtest %}
