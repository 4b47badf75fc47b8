{#- Event timestamps to UTC, chosen by adapter.dispatch.
    A string is RFC 3339 (offset or Z; none means UTC); a number is Unix epoch seconds.
    Anything else, or an impossible date, gives NULL. The result is a timestamp without time
    zone holding UTC. -#}


{% macro utc_timestamp_from_json(doc, key) -%}
    {{ return(adapter.dispatch('utc_timestamp_from_json', 'runlens')(doc, key)) }}
{%- endmacro %}

{% macro duckdb__utc_timestamp_from_json(doc, key) -%}
    case {{ runlens.json_kind(doc, key) }}
        when 'string' then {{ runlens.duckdb__utc_timestamp_from_text(runlens.json_text(doc, key)) }}
        when 'integer' then {{ runlens.duckdb__utc_timestamp_from_epoch(runlens.json_text(doc, key)) }}
        when 'number' then {{ runlens.duckdb__utc_timestamp_from_epoch(runlens.json_text(doc, key)) }}
    end
{%- endmacro %}

{% macro duckdb__utc_timestamp_from_text(text) -%}
    case
        when regexp_full_match({{ text }}, '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})?$')
            then try(
                (
                    try_cast(
                        case
                            when regexp_matches({{ text }}, '([Zz]|[+-][0-9]{2}:[0-9]{2})$') then upper({{ text }})
                            else upper({{ text }}) || '+00:00'
                        end as timestamptz
                    ) at time zone 'UTC'
                )::timestamp
            )
    end
{%- endmacro %}

{% macro duckdb__utc_timestamp_from_epoch(text) -%}
    try(make_timestamp(round(try_cast({{ text }} as double) * 1000000)::bigint))
{%- endmacro %}
