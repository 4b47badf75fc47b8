{#- Fails for every value of the key columns that is NULL in any of them or occurs more than once:
    unique and not null in one scan, table_rules' key rule on its own. With `changed`, only the
    rows this build wrote (macros/tests_on_changes.sql). -#}
{% test primary_key(model, columns, changed=none) %}
{{ runlens.test_table_rules(model, key=columns, changed=changed) }}
{% endtest %}
