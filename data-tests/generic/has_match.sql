{#- Fails for every non-NULL value of the column that has no row in `to` with that `field`: dbt's
    relationships test, with `changed` to check only the rows this build wrote
    (macros/tests_on_changes.sql). -#}
{% test has_match(model, column_name, to, field, changed=none) %}
select children.{{ column_name }}
from (
    select {{ column_name }} from {{ model }}
    where {{ runlens.changed_in_this_build(changed) }} and {{ column_name }} is not null
) as children
left join {{ to }} as parents on children.{{ column_name }} = parents.{{ field }}
where parents.{{ field }} is null
{% endtest %}
