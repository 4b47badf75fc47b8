{#- Fails for every row where the column is below zero. With `changed`, only the rows this build
    wrote (macros/tests_on_changes.sql). -#}
{% test not_negative(model, column_name, changed=none) %}
select {{ column_name }}
from {{ model }}
where {{ runlens.changed_in_this_build(changed) }} and {{ column_name }} < 0
{% endtest %}
