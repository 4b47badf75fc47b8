{#- Engine-specific JSON access, chosen by adapter.dispatch. Models call only these macros, so
    another engine needs only its own implementations here. A parsed document (`doc`) is the
    engine's JSON type: DuckDB json, PostgreSQL jsonb. -#}

{#- The line parsed as strict RFC 8259 JSON, or NULL when it is not. -#}
{% macro try_parse_json(text) -%}
    {{ return(adapter.dispatch('try_parse_json', 'runlens')(text)) }}
{%- endmacro %}

{% macro duckdb__try_parse_json(text) -%}
    case when {{ runlens.duckdb__is_valid_json(text) }} then ({{ text }})::json end
{%- endmacro %}

{#- PostgreSQL's own parser is strict (no trailing commas, no NaN); the function turns its error
    on a bad line into NULL (macros/engine/functions.sql). -#}
{% macro postgres__try_parse_json(text) -%}
    {{ target.schema }}.runlens_try_jsonb({{ text }})
{%- endmacro %}

{#- DuckDB's parser is lenient: it takes trailing commas and NaN / Infinity literals, which
    RFC 8259 forbids. With string literals blanked out and true/false/null read as 0, strict JSON
    has no letter but an exponent's e and no comma before a closing bracket. -#}
{% macro duckdb__is_valid_json(text) -%}
    coalesce(
        json_valid({{ text }})
        and not regexp_matches(
            regexp_replace(
                regexp_replace({{ text }}, '"(\\.|[^"\\])*"', '""', 'g'),
                'true|false|null', '0', 'g'
            ),
            ',\s*[}\]]|[a-df-zA-DF-Z]'
        ),
        false
    )
{%- endmacro %}

{#- True when a parsed document is a JSON object. -#}
{% macro is_json_object(doc) -%}
    {{ return(adapter.dispatch('is_json_object', 'runlens')(doc)) }}
{%- endmacro %}

{% macro duckdb__is_json_object(doc) -%}
    coalesce(json_type({{ doc }}) = 'OBJECT', false)
{%- endmacro %}

{% macro postgres__is_json_object(doc) -%}
    coalesce(jsonb_typeof({{ doc }}) = 'object', false)
{%- endmacro %}

{#- The JSON type of doc at key: one of object, array, string, integer, number, boolean, null,
    or NULL when the key is absent. An integer is a number written without fraction or exponent
    that fits in 64 bits. -#}
{% macro json_kind(doc, key) -%}
    {{ return(adapter.dispatch('json_kind', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_kind(doc, key) -%}
    case json_type({{ doc }}, {{ runlens.json_path(key) }})
        when 'OBJECT' then 'object'
        when 'ARRAY' then 'array'
        when 'VARCHAR' then 'string'
        when 'UBIGINT' then 'integer'
        when 'BIGINT' then 'integer'
        when 'DOUBLE' then 'number'
        when 'BOOLEAN' then 'boolean'
        when 'NULL' then 'null'
    end
{%- endmacro %}

{% macro postgres__json_kind(doc, key) -%}
    case jsonb_typeof({{ doc }} -> '{{ key }}')
        when 'number' then
            case
                when
                    ({{ doc }} ->> '{{ key }}') ~ '^-?[0-9]+$'
                    and ({{ doc }} ->> '{{ key }}')::numeric between -9223372036854775808 and 18446744073709551615
                    then 'integer'
                else 'number'
            end
        else jsonb_typeof({{ doc }} -> '{{ key }}')
    end
{%- endmacro %}

{#- The text of a string field, or the JSON text of any other value. -#}
{% macro json_text(doc, key) -%}
    {{ return(adapter.dispatch('json_text', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_text(doc, key) -%}
    json_extract_string({{ doc }}, {{ runlens.json_path(key) }})
{%- endmacro %}

{% macro postgres__json_text(doc, key) -%}
    ({{ doc }} ->> '{{ key }}')
{%- endmacro %}

{#- The JSON value at key, as JSON. -#}
{% macro json_value(doc, key) -%}
    {{ return(adapter.dispatch('json_value', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_value(doc, key) -%}
    json_extract({{ doc }}, {{ runlens.json_path(key) }})
{%- endmacro %}

{% macro postgres__json_value(doc, key) -%}
    ({{ doc }} -> '{{ key }}')
{%- endmacro %}

{% macro json_path(key) -%}
    '$."{{ key }}"'
{%- endmacro %}

{#- A JSON value written as JSON text (a string keeps its quotes). -#}
{% macro json_to_text(value) -%}
    {{ return(adapter.dispatch('json_to_text', 'runlens')(value)) }}
{%- endmacro %}

{% macro duckdb__json_to_text(value) -%}
    ({{ value }})::varchar
{%- endmacro %}

{% macro postgres__json_to_text(value) -%}
    ({{ value }})::text
{%- endmacro %}

{#- A JSON number as a double. -#}
{% macro json_to_double(value) -%}
    {{ return(adapter.dispatch('json_to_double', 'runlens')(value)) }}
{%- endmacro %}

{% macro duckdb__json_to_double(value) -%}
    ({{ value }})::double
{%- endmacro %}

{% macro postgres__json_to_double(value) -%}
    (({{ value }}) #>> '{}')::double precision
{%- endmacro %}

{#- A query over `relation` with one row per entry of the JSON object in column `doc`: the given
    columns of the row, then entry_key and entry_value (the value as JSON). Rows whose doc is not
    an object (or, on DuckDB, repeats a key) give no entries. `where` filters the rows first.
    Each object is parsed once, and no output row carries the whole object. -#}
{% macro json_object_entries_query(relation, doc, columns, where=none) -%}
    {{ return(adapter.dispatch('json_object_entries_query', 'runlens')(relation, doc, columns, where)) }}
{%- endmacro %}

{% macro duckdb__json_object_entries_query(relation, doc, columns, where) -%}
    select
        {% for column in columns %}{{ column }}, {% endfor %}
        entry['key'] as entry_key,
        entry['value'] as entry_value
    from (
        select
            {% for column in columns %}{{ column }}, {% endfor %}
            unnest(map_entries(try_cast({{ doc }} as map(varchar, json)))) as entry
        from {{ relation }}
        {% if where %}where {{ where }}{% endif %}
    ) as entries
{%- endmacro %}

{% macro postgres__json_object_entries_query(relation, doc, columns, where) -%}
    select
        {% for column in columns %}object_rows.{{ column }}, {% endfor %}
        entry.key as entry_key,
        entry.value as entry_value
    from {{ relation }} as object_rows
    cross join lateral jsonb_each(
        case when jsonb_typeof(object_rows.{{ doc }}) = 'object' then object_rows.{{ doc }} else '{}'::jsonb end
    ) as entry
    {% if where %}where {{ where }}{% endif %}
{%- endmacro %}

{#- True when a JSON object's values are all numbers >= 0 (an empty object counts). -#}
{% macro is_object_of_non_negative_numbers(doc) -%}
    {{ return(adapter.dispatch('is_object_of_non_negative_numbers', 'runlens')(doc)) }}
{%- endmacro %}

{% macro duckdb__is_object_of_non_negative_numbers(doc) -%}
    coalesce(
        list_bool_and(
            list_transform(
                map_entries(try_cast({{ doc }} as map(varchar, json))),
                lambda entry: json_type(entry.value) in ('UBIGINT', 'BIGINT', 'DOUBLE') and try_cast(entry.value as double) >= 0
            )
        ),
        try_cast({{ doc }} as map(varchar, json)) is not null
    )
{%- endmacro %}

{% macro postgres__is_object_of_non_negative_numbers(doc) -%}
    (
        jsonb_typeof({{ doc }}) = 'object'
        and not exists (
            select 1
            from jsonb_each(case when jsonb_typeof({{ doc }}) = 'object' then {{ doc }} else '{}'::jsonb end) as entry
            where jsonb_typeof(entry.value) != 'number' or (entry.value #>> '{}')::numeric < 0
        )
    )
{%- endmacro %}
