{#- Loading seeds, where an engine's adapter needs help (found through dbt_project.yml `dispatch`). -#}

{#- Spark: dbt-spark's session method binds every seed value as `'<value>'`, so an empty cell (None)
    would load as the text 'None' and a quote would break the statement. The values are written
    as literals here instead: NULL for an empty cell, strings escaped for Spark SQL. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {% set column_override = model['config'].get('column_types', {}) %}
    {% set statements = [] %}
    {% for chunk in agate_table.rows | batch(get_batch_size()) %}
        {% set sql %}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                    {%- set type = column_override.get(col_name, inferred_type) -%}
                    {%- set value = row[loop.index0] -%}
                    {%- if value is none -%}
                        cast(null as {{ type }})
                    {%- elif value is sameas true or value is sameas false -%}
                        cast({{ 'true' if value else 'false' }} as {{ type }})
                    {%- elif value is number -%}
                        cast({{ value }} as {{ type }})
                    {%- else -%}
                        cast('{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}' as {{ type }})
                    {%- endif -%}
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor %}
        {% endset %}
        {% do adapter.add_query(sql, abridge_sql_log=True) %}
        {% if loop.index0 == 0 %}
            {% do statements.append(sql) %}
        {% endif %}
    {% endfor %}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
