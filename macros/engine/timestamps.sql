{#- Event timestamps to UTC, chosen by adapter.dispatch.
    A string is RFC 3339 (offset or Z; none means UTC); a number is Unix epoch seconds.
    Fields out of range (hour 24, minute or second 60, offset +24:00) are rejected, not rolled
    over; so is a leap second, which RFC 3339 allows but a timestamp type cannot hold.
    Anything else, or an impossible date, gives NULL. The result is a timestamp without time
    zone holding UTC. -#}


{#- The event time from the kind and text of a JSON value (json_kind, json_text): a string is
    read as RFC 3339, an integer or number as epoch seconds; anything else is NULL. -#}
{% macro utc_timestamp(kind, text) -%}
    {{ return(adapter.dispatch('utc_timestamp', 'runlens')(kind, text)) }}
{%- endmacro %}

{% macro duckdb__utc_timestamp(kind, text) -%}
    case {{ kind }}
        when 'string' then {{ runlens.duckdb__utc_timestamp_from_text(text) }}
        when 'integer' then {{ runlens.duckdb__utc_timestamp_from_epoch(text) }}
        when 'number' then {{ runlens.duckdb__utc_timestamp_from_epoch(text) }}
    end
{%- endmacro %}

{% macro duckdb__utc_timestamp_from_text(text) -%}
    case
        when regexp_full_match({{ text }}, '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$')
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

{#- PostgreSQL: the same pattern check; the cast that could still fail (an impossible date such as
    February 30) is made safe by a function (macros/engine/functions.sql). `::timestamp` would
    drop an offset silently, so the text is read as timestamptz and converted to UTC. -#}
{% macro postgres__utc_timestamp(kind, text) -%}
    case {{ kind }}
        when 'string' then {{ runlens.postgres__utc_timestamp_from_text(text) }}
        when 'integer' then {{ target.schema }}.runlens_try_epoch_timestamp({{ text }})
        when 'number' then {{ target.schema }}.runlens_try_epoch_timestamp({{ text }})
    end
{%- endmacro %}

{% macro postgres__utc_timestamp_from_text(text) -%}
    case
        when {{ text }} ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$'
            then {{ target.schema }}.runlens_try_utc_timestamp(
                case
                    when {{ text }} ~ '([Zz]|[+-][0-9]{2}:[0-9]{2})$' then upper({{ text }})
                    else upper({{ text }}) || '+00:00'
                end
            )
    end
{%- endmacro %}

{#- Spark: the same pattern check (ending in `\z`: Java's `$` also matches before a final line
    break). Spark's own parsers stop at offsets of +-18:00, so the fields are taken apart by
    position: try_make_timestamp builds the wall-clock time in UTC (NULL for an impossible date
    such as February 30), digits after the sixth of a second are dropped as DuckDB does, and the
    offset is subtracted in microseconds. The result is a TIMESTAMP (an instant; the session time
    zone is UTC, so it reads as UTC wall-clock time and parquet stores the instant). An epoch
    number is read as a double and rounded to the microsecond, halves away from zero. -#}
{% macro spark__utc_timestamp(kind, text) -%}
    case {{ kind }}
        when 'string' then {{ runlens.spark__utc_timestamp_from_text(text) }}
        when 'integer' then {{ runlens.spark__utc_timestamp_from_epoch("try_cast(" ~ text ~ " as double)") }}
        when 'number' then {{ runlens.spark__utc_timestamp_from_epoch("try_cast(" ~ text ~ " as double)") }}
    end
{%- endmacro %}

{% macro spark__utc_timestamp_from_text(text) -%}
    case
        when {{ text }} rlike '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?\\z'
            then timestamp_micros(
                unix_micros(
                    try_make_timestamp(
                        cast(substring({{ text }}, 1, 4) as int),
                        cast(substring({{ text }}, 6, 2) as int),
                        cast(substring({{ text }}, 9, 2) as int),
                        cast(substring({{ text }}, 12, 2) as int),
                        cast(substring({{ text }}, 15, 2) as int),
                        cast(
                            substring({{ text }}, 18, 2) || '.'
                            || rpad(regexp_extract({{ text }}, '^.{19}[.]([0-9]+)', 1), 6, '0') as decimal(8, 6)
                        ),
                        'UTC'
                    )
                )
                - case
                    when {{ text }} rlike '[+-][0-9]{2}:[0-9]{2}\\z'
                        then
                            (case when substring({{ text }}, -6, 1) = '-' then -1 else 1 end)
                            * (cast(substring({{ text }}, -5, 2) as bigint) * 3600 + cast(substring({{ text }}, -2, 2) as bigint) * 60)
                            * 1000000
                    else 0
                end
            )
    end
{%- endmacro %}

{% macro spark__utc_timestamp_from_epoch(value) -%}
    timestamp_micros(try_cast(round({{ value }} * 1000000.0D) as bigint))
{%- endmacro %}
