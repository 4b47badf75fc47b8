{#-
    What a build runs with, for the marts that depend on it (dim_build, the live-run marts):

    - build_raw_dir(): the raw folder the build reads. DuckDB: its absolute path, from the plugin
      when the build runs (runlens/raw_logs/duckdb_plugin.py). PostgreSQL and Spark: RUNLENS_RAW_DIR
      as given (default data/sample).
    - build_as_of(): the instant every "now"-dependent figure is computed as of: the dbt var
      `as_of` when set, else RUNLENS_AS_OF when set, else the moment the build started
      (build_started_at, macros/incremental_state.sql). A pinned time is ISO 8601 (`2026-12-01T12:00:00Z`; without an offset
      it is UTC) and is held as naive UTC like every timestamp in the marts.
    - build_as_of_source(): 'pinned' or 'build_start'.
-#}

{% macro build_raw_dir() -%}
    {{- return(adapter.dispatch('build_raw_dir', 'runlens')()) -}}
{%- endmacro %}

{% macro duckdb__build_raw_dir() -%}
    runlens_raw_dir()
{%- endmacro %}

{% macro default__build_raw_dir() -%}
    {{- dbt.string_literal(env_var('RUNLENS_RAW_DIR', 'data/sample')) -}}
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
        {{- adapter.dispatch('build_pinned_as_of_from_env', 'runlens')() -}}
    {%- endif -%}
{%- endmacro %}

{% macro duckdb__build_pinned_as_of_from_env() -%}
    {#- read by the plugin when the build runs: no parsing again when RUNLENS_AS_OF changes -#}
    runlens_pinned_as_of()
{%- endmacro %}

{% macro default__build_pinned_as_of_from_env() -%}
    {%- set pinned = env_var('RUNLENS_AS_OF', '') -%}
    {%- if pinned | trim != '' -%}
        {{- runlens.as_of_timestamp(pinned, 'RUNLENS_AS_OF') -}}
    {%- else -%}
        cast(null as {{ dbt.type_timestamp() }})
    {%- endif -%}
{%- endmacro %}

{% macro build_as_of() -%}
    coalesce({{ runlens.build_pinned_as_of() }}, {{ runlens.build_started_at() }})
{%- endmacro %}

{% macro build_as_of_source() -%}
    case when {{ runlens.build_pinned_as_of() }} is null then 'build_start' else 'pinned' end
{%- endmacro %}
