{#- Fails for every row where one of the columns is NULL: not_null for several columns in one
    scan. With `changed`, only the rows this build wrote (macros/tests_on_changes.sql). -#}
{% test not_null_columns(model, columns, changed=none) %}
select {{ columns | join(', ') }}
from {{ model }}
where
    {{ runlens.changed_in_this_build(changed) }}
    and (
        {%- for column in columns %}
        {{ column }} is null{% if not loop.last %} or{% endif %}
        {%- endfor %}
    )
{% endtest %}
