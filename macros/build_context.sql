{#-
    What a build runs with, for the marts that depend on it (dim_build, the live-run marts), read
    from the build context the reader wrote (stg_build_context, source runlens_raw.build_context)
    when the build runs, so that none of it is part of what dbt parses or compiles:

    - build_raw_dir(): the raw folder the build read (its absolute path).
    - build_as_of(): the instant every "now"-dependent figure is computed as of: the dbt var
      `as_of` when set, else the time RUNLENS_AS_OF or the folder's runlens_as_of.txt pins
      (runlens/raw_logs/as_of.py), else the moment the reading began (build_started_at,
      macros/incremental_state.sql). A pinned time is ISO 8601 (`2026-12-01T12:00:00Z`; without an
      offset it is UTC) and is held as naive UTC like every timestamp in the marts.
    - build_as_of_source(): 'pinned' or 'build_start'.
-#}

{% macro build_raw_dir() -%}
    (select build_context.raw_dir from {{ ref('stg_build_context') }} as build_context)
{%- endmacro %}

{% macro as_of_timestamp(text, origin) -%}
    {#- text as a timestamp literal in naive UTC; a compile error of one line when it is no time -#}
    {%- set parsed = none -%}
    {%- set clean = text | string | trim -%}
    {%- if modules.re.match('^\d{4}-\d{2}-\d{2}([T ][0-9:.]+)?(Z|[+-]\d{2}:?\d{2})?$', clean) -%}
        {%- set parsed = modules.datetime.datetime.fromisoformat(clean) -%}
    {%- endif -%}
    {%- if parsed is none -%}
        {{ exceptions.raise_compiler_error(
            "runlens: " ~ origin ~ "=" ~ clean ~ " is not a time: give an ISO 8601 time such as 2026-12-01T12:00:00Z, or unset it"
        ) }}
    {%- endif -%}
    {%- if parsed.tzinfo is not none -%}
        {%- set parsed = parsed.astimezone(modules.pytz.utc).replace(tzinfo=none) -%}
    {%- endif -%}
    cast({{ dbt.string_literal(parsed.strftime('%Y-%m-%d %H:%M:%S.%f')) }} as {{ dbt.type_timestamp() }})
{%- endmacro %}

{% macro build_pinned_as_of() -%}
    {#- the pinned as-of time as SQL, NULL when none is pinned -#}
    {%- set pinned = var('as_of', none) -%}
    {%- if pinned is not none and pinned | string | trim != '' -%}
        {{- runlens.as_of_timestamp(pinned, 'as_of') -}}
    {%- else -%}
        (select build_context.pinned_as_of from {{ ref('stg_build_context') }} as build_context)
    {%- endif -%}
{%- endmacro %}

{% macro build_as_of() -%}
    coalesce({{ runlens.build_pinned_as_of() }}, {{ runlens.build_started_at() }})
{%- endmacro %}

{% macro build_as_of_source() -%}
    case when {{ runlens.build_pinned_as_of() }} is null then 'build_start' else 'pinned' end
{%- endmacro %}

{#- True when the reading had no error; on DuckDB, whose reader runs while dbt connects, an error
    stops the build with its line. The other engines' readers run before dbt and stop there. -#}
{% macro stop_on_reading_error(reading_error) -%}
    {{ return(adapter.dispatch('stop_on_reading_error', 'runlens')(reading_error)) }}
{%- endmacro %}

{% macro default__stop_on_reading_error(reading_error) -%}
    {{ reading_error }} is null
{%- endmacro %}

{% macro duckdb__stop_on_reading_error(reading_error) -%}
    case when {{ reading_error }} is null then true else error({{ reading_error }}) end
{%- endmacro %}
