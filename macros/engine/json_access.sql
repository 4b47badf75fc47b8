{#- Engine-specific JSON access, chosen by adapter.dispatch. Models call only these macros, so
    another engine needs only its own implementations here. -#}

{#- The JSON type of doc at key: one of object, array, string, integer, number, boolean, null,
    or NULL when the key is absent. -#}
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

{#- The text of a string field, or the JSON text of any other value. -#}
{% macro json_text(doc, key) -%}
    {{ return(adapter.dispatch('json_text', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_text(doc, key) -%}
    json_extract_string({{ doc }}, {{ runlens.json_path(key) }})
{%- endmacro %}

{#- The JSON value at key, as JSON. -#}
{% macro json_value(doc, key) -%}
    {{ return(adapter.dispatch('json_value', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_value(doc, key) -%}
    json_extract({{ doc }}, {{ runlens.json_path(key) }})
{%- endmacro %}

{#- True when text is a well-formed JSON document. -#}
{% macro is_valid_json(text) -%}
    {{ return(adapter.dispatch('is_valid_json', 'runlens')(text)) }}
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

{% macro json_path(key) -%}
    '$."{{ key }}"'
{%- endmacro %}

{#- The entries of a JSON object as a list of {key, value} (values as JSON), parsed once; NULL
    when it is not an object or repeats a key. -#}
{% macro json_object_entries(doc) -%}
    {{ return(adapter.dispatch('json_object_entries', 'runlens')(doc)) }}
{%- endmacro %}

{% macro duckdb__json_object_entries(doc) -%}
    map_entries(try_cast({{ doc }} as map(varchar, json)))
{%- endmacro %}

{#- True when a JSON object's values are all numbers >= 0 (an empty object counts). -#}
{% macro is_object_of_non_negative_numbers(doc) -%}
    {{ return(adapter.dispatch('is_object_of_non_negative_numbers', 'runlens')(doc)) }}
{%- endmacro %}

{% macro duckdb__is_object_of_non_negative_numbers(doc) -%}
    coalesce(
        list_bool_and(
            list_transform(
                {{ runlens.json_object_entries(doc) }},
                lambda entry: json_type(entry.value) in ('UBIGINT', 'BIGINT', 'DOUBLE') and try_cast(entry.value as double) >= 0
            )
        ),
        try_cast({{ doc }} as map(varchar, json)) is not null
    )
{%- endmacro %}
