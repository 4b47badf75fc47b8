{#- Engine-specific JSON access, chosen by adapter.dispatch. Models call only these macros, so
    another engine needs only its own implementations here.
    A parsed line (`doc`, from try_parse_json; NULL when the line is not JSON) is read through its
    top-level fields (parsed_fields) with is_parsed_object, json_kind, json_text and json_value: on
    DuckDB a struct of the wanted fields (each JSON), on PostgreSQL jsonb, on Spark a struct of
    variants. A JSON value (a config, a sections object) is the engine's JSON
    type: DuckDB json, PostgreSQL jsonb, Spark variant. -#}

{#- The line parsed as strict RFC 8259 JSON, or NULL when it is not; `keys` are the top-level
    fields the model will read. -#}
{% macro try_parse_json(text, keys) -%}
    {{ return(adapter.dispatch('try_parse_json', 'runlens')(text, keys)) }}
{%- endmacro %}

{#- DuckDB: every json_* function parses its argument again, so a line is parsed once, into a
    struct of the wanted fields (json_transform; each field JSON, NULL when absent or JSON null)
    and whether the line is an object (valid JSON whose first non-blank character is `{`).
    DuckDB evaluates both sides of AND / OR in a select list, but only the rows a CASE branch
    takes, so the costly checks are nested CASEs. -#}
{% macro duckdb__try_parse_json(text, keys) -%}
    case
        when not coalesce(json_valid({{ text }}), false) then null
        when {{ runlens.duckdb__is_lenient_json(text) }} then null
        else {
            'fields': json_transform(
                {{ text }}, '{ {%- for key in keys %}"{{ key }}":"JSON"{% if not loop.last %},{% endif %}{% endfor -%} }'
            ),
            'is_object': ltrim({{ text }}, ' ' || chr(9) || chr(10) || chr(13))[1] = '{'
        }
    end
{%- endmacro %}

{#- PostgreSQL's own parser is strict (no trailing commas, no NaN); the function turns its error
    on a bad line into NULL (macros/engine/functions.sql). -#}
{% macro postgres__try_parse_json(text, keys) -%}
    {{ target.schema }}.runlens_try_jsonb({{ text }})
{%- endmacro %}

{#- DuckDB's parser is lenient: it takes trailing commas and NaN / Infinity literals (any case),
    which RFC 8259 forbids. For valid JSON this is true when the text uses one of them: with
    string literals blanked out and true/false/null read as 0, strict JSON has no letter but an
    exponent's e and no comma before a closing bracket. That check is costly, so it runs only on
    lines that could fail it: those with `nan` or `inf` in any case, or a comma followed by blanks
    and a closing bracket (blanking strings cannot create either). -#}
{% macro duckdb__is_lenient_json(text) -%}
    case
        when regexp_matches({{ text }}, '(?i)nan|inf|,\s*[}\]]')
            then regexp_matches(
                regexp_replace(
                    regexp_replace({{ text }}, '"(\\.|[^"\\])*"', '""', 'g'),
                    'true|false|null', '0', 'g'
                ),
                ',\s*[}\]]|[a-df-zA-DF-Z]'
            )
        else false
    end
{%- endmacro %}

{#- The top-level fields of a parsed line that is_parsed_object, json_kind, json_text and
    json_value read. DuckDB's try_parse_json already picked them, and PostgreSQL reads the jsonb
    itself. -#}
{% macro parsed_fields(doc, keys) -%}
    {{ return(adapter.dispatch('parsed_fields', 'runlens')(doc, keys)) }}
{%- endmacro %}

{% macro default__parsed_fields(doc, keys) -%}
    {{ doc }}
{%- endmacro %}

{#- Spark: the wanted fields taken out of the variant once, as a struct of variants (NULL when the
    line is no object; a field absent from the line is NULL, a JSON null a variant null). Reading
    each field from the variant by its path instead (variant_get per field, for its kind and again
    for its text) made the line parse's generated Java method pass 64 KB, and Spark ran that stage
    without generated code (tests/engines/test_engine_parity.py reads the build's log for it). -#}
{% macro spark__parsed_fields(doc, keys) -%}
    try_variant_get(
        {{ doc }}, '$', 'struct<{% for key in keys %}`{{ key }}`: variant{% if not loop.last %}, {% endif %}{% endfor %}>'
    )
{%- endmacro %}

{#- True when a parsed line's fields (parsed_fields) are those of a JSON object. -#}
{% macro is_parsed_object(doc) -%}
    {{ return(adapter.dispatch('is_parsed_object', 'runlens')(doc)) }}
{%- endmacro %}

{% macro duckdb__is_parsed_object(doc) -%}
    coalesce({{ doc }}['is_object'], false)
{%- endmacro %}

{#- Spark: the struct of fields exists only for an object. -#}
{% macro spark__is_parsed_object(doc) -%}
    ({{ doc }} is not null)
{%- endmacro %}

{#- PostgreSQL reads a parsed line as any JSON value. -#}
{% macro default__is_parsed_object(doc) -%}
    {{ runlens.is_json_object(doc) }}
{%- endmacro %}

{#- True when a JSON value is a JSON object. -#}
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

{#- DuckDB: a field's JSON text (json_transform writes it without blanks) says its kind by its
    first character; only a number needs json_type, to tell an integer that fits in 64 bits. -#}
{% macro duckdb__json_kind(doc, key) -%}
    {%- set value = doc ~ "['fields']['" ~ key ~ "']" -%}
    case left({{ value }}::varchar, 1)
        when '"' then 'string'
        when '{' then 'object'
        when '[' then 'array'
        when 't' then 'boolean'
        when 'f' then 'boolean'
        else
            case json_type({{ value }})
                when 'UBIGINT' then 'integer'
                when 'BIGINT' then 'integer'
                when 'DOUBLE' then 'number'
            end
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
    ({{ doc }}['fields']['{{ key }}'] ->> '$')
{%- endmacro %}

{% macro postgres__json_text(doc, key) -%}
    ({{ doc }} ->> '{{ key }}')
{%- endmacro %}

{#- The JSON value at key, as JSON. -#}
{% macro json_value(doc, key) -%}
    {{ return(adapter.dispatch('json_value', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__json_value(doc, key) -%}
    {{ doc }}['fields']['{{ key }}']
{%- endmacro %}

{% macro postgres__json_value(doc, key) -%}
    ({{ doc }} -> '{{ key }}')
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

{#- DuckDB: a JSON null inside the object comes out of the map as SQL NULL, which must count as
    "not a number", not as unknown. -#}
{% macro duckdb__is_object_of_non_negative_numbers(doc) -%}
    coalesce(
        list_bool_and(
            list_transform(
                map_entries(try_cast({{ doc }} as map(varchar, json))),
                lambda entry: coalesce(
                    json_type(entry.value) in ('UBIGINT', 'BIGINT', 'DOUBLE') and try_cast(entry.value as double) >= 0,
                    false
                )
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

{#- Spark: the document is a VARIANT. try_parse_json is strict RFC 8259 (no trailing commas, NaN,
    single quotes or leading zeros). Spark rejects an object that repeats a key unless
    spark.sql.variant.allowDuplicateKeys is set (profiles.yml sets it, so such a line is read as
    on DuckDB, though Spark keeps the last value of the key where DuckDB keeps the first). -#}
{% macro spark__try_parse_json(text, keys) -%}
    try_parse_json({{ text }})
{%- endmacro %}

{#- Spark: a variant's type is the head of schema_of_variant (OBJECT<...>, ARRAY<...>, BIGINT,
    DECIMAL(p,s), DOUBLE, STRING, BOOLEAN; JSON null is a variant null). -#}
{% macro spark__variant_type(value) -%}
    regexp_extract(schema_of_variant({{ value }}), '^[A-Z_]+', 0)
{%- endmacro %}

{% macro spark__is_json_object(doc) -%}
    coalesce({{ runlens.spark__variant_type(doc) }} = 'OBJECT', false)
{%- endmacro %}

{#- Spark: integers that fit in 64 bits are BIGINT in a variant; any other number is DECIMAL or
    DOUBLE (a number written with a fraction, even `1.0`, is never BIGINT); a JSON null is VOID.
    The kind is looked up in a literal map, which compiles to a constant (a CASE per field made
    the line parse's generated code too large). -#}
{% macro spark__json_kind(doc, key) -%}
    try_element_at(
        map(
            'OBJECT', 'object', 'ARRAY', 'array', 'STRING', 'string', 'BOOLEAN', 'boolean', 'VOID', 'null',
            'BIGINT', 'integer', 'INT', 'integer', 'SMALLINT', 'integer', 'TINYINT', 'integer',
            'DECIMAL', 'number', 'DOUBLE', 'number', 'FLOAT', 'number'
        ),
        {{ runlens.spark__variant_type(runlens.spark__json_field(doc, key)) }}
    )
{%- endmacro %}

{#- Spark: a field of the struct of a line's fields (parsed_fields). -#}
{% macro spark__json_field(doc, key) -%}
    {{ doc }}.`{{ key }}`
{%- endmacro %}

{#- Spark: a variant cast to string is the text of a string and the JSON text of anything else;
    JSON null gives NULL, as on DuckDB. -#}
{% macro spark__json_text(doc, key) -%}
    variant_get({{ runlens.spark__json_field(doc, key) }}, '$', 'string')
{%- endmacro %}

{% macro spark__json_value(doc, key) -%}
    {{ runlens.spark__json_field(doc, key) }}
{%- endmacro %}

{#- Spark: DuckDB keeps an integer's digits and reads any other number as a double, which it
    writes shortest (`1.0`, `0.00001`, `1e-7`); Spark's variant keeps a number with a fraction as
    DECIMAL (to_json drops its trailing zeros: `1.0` -> `1`) or, with an exponent, DOUBLE (written
    `1.0E-5`). So a number that is not an integer is written from its double as DuckDB does, at
    the top and in an array of the leaf; a DECIMAL of scale 0 and 19 digits or more is an integer
    beyond 64 bits, kept as it is. Anything deeper is written by to_json. JSON null gives NULL,
    as on DuckDB. -#}
{% macro spark__json_to_text(value) -%}
    case
        when is_variant_null({{ value }}) then null
        when schema_of_variant({{ value }}) like 'ARRAY<%'
            then concat(
                '[',
                array_join(
                    transform(
                        try_variant_get({{ value }}, '$', 'array<variant>'),
                        array_item -> {{ runlens.spark__json_scalar_text('array_item') }}
                    ),
                    ','
                ),
                ']'
            )
        else {{ runlens.spark__json_scalar_text(value) }}
    end
{%- endmacro %}

{% macro spark__json_scalar_text(value) -%}
    case
        when
            schema_of_variant({{ value }}) = 'DOUBLE'
            or schema_of_variant({{ value }}) rlike '^DECIMAL\\(([0-9]+,[1-9][0-9]*|([1-9]|1[0-8]),0)\\)\\z'
            then {{ runlens.spark__json_number_text("try_variant_get(" ~ value ~ ", '$', 'double')") }}
        else to_json({{ value }})
    end
{%- endmacro %}

{% macro spark__json_to_double(value) -%}
    try_variant_get({{ value }}, '$', 'double')
{%- endmacro %}

{#- Spark: variant_explode gives one row per entry of an object (none for anything else). -#}
{% macro spark__json_object_entries_query(relation, doc, columns, where) -%}
    select
        {% for column in columns %}object_rows.{{ column }}, {% endfor %}
        entry.key as entry_key,
        entry.value as entry_value
    from {{ relation }} as object_rows,
        lateral variant_explode(object_rows.{{ doc }}) as entry
    {% if where %}where {{ where }}{% endif %}
{%- endmacro %}

{#- Spark: the object as a map of variants, every value checked by a lambda. -#}
{% macro spark__is_object_of_non_negative_numbers(doc) -%}
    coalesce(
        forall(
            map_values(try_variant_get({{ doc }}, '$', 'map<string, variant>')),
            entry_value -> {{ runlens.spark__variant_type('entry_value') }} in ('BIGINT', 'INT', 'SMALLINT', 'TINYINT', 'DECIMAL', 'DOUBLE', 'FLOAT')
                and try_variant_get(entry_value, '$', 'double') >= 0
        ),
        false
    )
{%- endmacro %}

{#- Spark: a double written as DuckDB's JSON writer (yyjson) writes it: the shortest digits,
    plain between 1e-6 and 1e21 (with `.0` when whole), else `<d>[.<ddd>]e<exponent>`. Spark's
    text of a double is Java's (`1.0E-5`), whose digits and exponent are taken apart here. -#}
{% macro spark__json_number_text(value) -%}
    {%- set java = "cast(" ~ value ~ " as string)" -%}
    {%- set pattern = "'^(-?)([0-9]+)[.]([0-9]+)(E(-?[0-9]+))?$'" -%}
    {%- set all_digits = "concat(regexp_extract(" ~ java ~ ", " ~ pattern ~ ", 2), regexp_extract(" ~ java ~ ", " ~ pattern ~ ", 3))" -%}
    {%- set digits = "regexp_replace(regexp_replace(" ~ all_digits ~ ", '^0+', ''), '0+$', '')" -%}
    {#- the number is 0.<digits> x 10^point -#}
    {%- set point = "(length(regexp_extract(" ~ java ~ ", " ~ pattern ~ ", 2)) + coalesce(try_cast(nullif(regexp_extract(" ~ java ~ ", " ~ pattern ~ ", 5), '') as int), 0) - (length(" ~ all_digits ~ ") - length(regexp_replace(" ~ all_digits ~ ", '^0+', ''))))" -%}
    concat(
        regexp_extract({{ java }}, {{ pattern }}, 1),
        case
            when {{ digits }} = '' then '0.0'
            when {{ point }} - 1 between -6 and 20 then
                case
                    when {{ point }} <= 0 then concat('0.', repeat('0', -{{ point }}), {{ digits }})
                    when {{ point }} >= length({{ digits }}) then concat({{ digits }}, repeat('0', {{ point }} - length({{ digits }})), '.0')
                    else concat(substring({{ digits }}, 1, {{ point }}), '.', substring({{ digits }}, {{ point }} + 1))
                end
            else
                concat(
                    substring({{ digits }}, 1, 1),
                    case when length({{ digits }}) > 1 then concat('.', substring({{ digits }}, 2)) else '' end,
                    'e',
                    cast({{ point }} - 1 as string)
                )
        end
    )
{%- endmacro %}
