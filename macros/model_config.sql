{#- The config of an incremental model, by what it is incremental on: one place for what the
    engines differ in (Spark's parquet tables cannot delete rows, so Spark rebuilds every
    incremental model whole) and for each grain's pre-hook. A model calls it first thing:
    `{{ config(**runlens.incremental_config('run')) }}`. models/README.md, "How incremental models
    work", says what else a model incremental by run needs (tests/pipeline/test_model_conventions.py
    checks it).

    by:
    - 'file': the rows of files that are gone or changed are deleted (stg_log_lines);
    - 'run': the rows of the runs that changed (macros/run_versions.sql);
    - 'live_run': those and every incomplete run's, which move with the as-of time;
    - 'collection', 'task': the rows of the groups changed runs belong to (macros/run_groups.sql);
    - 'version': one row per run, updated in place on unique_key (int_run_versions);
    - 'append': rows only added (int_run_groups' history).
    pre_hook: a pre-hook of the model's own instead of its grain's (fct_run_stragglers'). -#}
{% macro incremental_config(by, pre_hook=none) -%}
    {%- set hooks = {
        'file': "{{ runlens.delete_rows_of_changed_files() }}",
        'run': "{{ runlens.delete_rows_of_changed_runs() }}",
        'live_run': "{{ runlens.delete_rows_of_changed_or_live_runs() }}",
        'collection': "{{ runlens.delete_rows_of_changed_groups() }}",
        'task': "{{ runlens.delete_rows_of_changed_groups('task') }}",
    } -%}
    {%- if by not in hooks and by not in ('version', 'append') -%}
        {{ exceptions.raise_compiler_error("incremental_config: unknown grain " ~ by) }}
    {%- endif -%}
    {%- set settings = {
        'materialized': 'table' if target.type == 'spark' else 'incremental',
        'incremental_strategy': 'delete+insert' if by == 'version' else 'append',
    } -%}
    {%- if by == 'version' -%}
        {%- do settings.update({'unique_key': 'run_id'}) -%}
    {%- endif -%}
    {%- if pre_hook is not none or by in hooks -%}
        {%- do settings.update({'pre_hook': pre_hook if pre_hook is not none else hooks[by]}) -%}
    {%- endif -%}
    {%- do return(settings) -%}
{%- endmacro %}
