{#- Data tests on a refresh check what the build changed: a generic test given `changed: <how>`
    reads only the rows this build wrote, which on a first build or a --full-refresh are all rows;
    `dbt test` on its own, or a test without `changed`, checks every row. Rows a refresh did not
    touch were checked by the build that wrote them. How a model tells its changed rows:
      computed_at  a per-run model (macros/run_versions.sql): the rows computed in this build
      changed_at   int_run_versions: the runs whose version this build changed
      loaded_at    stg_log_lines: the lines read in this build
      run_id       a model keyed by run: the runs whose lines changed in this build (int_run_versions)
      file_path    a model keyed by file: the files read in this build (stg_log_lines) -#}

{#- The condition a test's rows must meet; `true` outside `dbt build` / `dbt run` or without `changed`. -#}
{% macro changed_in_this_build(changed) -%}
    {#- named here whatever the branch, so that dbt sees the dependency when it parses the test -#}
    {%- if changed == 'run_id' %}{% set versions = ref('int_run_versions') %}{% endif -%}
    {%- if changed == 'file_path' %}{% set lines = ref('stg_log_lines') %}{% endif -%}
    {%- if changed %}{% set context = ref('stg_build_context') %}{% endif -%}
    {%- if not changed or flags.WHICH not in ('build', 'run') -%}
        true
    {%- elif changed == 'computed_at' -%}
        computed_at = {{ runlens.build_started_at() }}
    {%- elif changed == 'changed_at' -%}
        changed_at = {{ runlens.build_started_at() }}
    {%- elif changed == 'loaded_at' -%}
        loaded_at = {{ runlens.build_started_at() }}
    {%- elif changed == 'run_id' -%}
        run_id in (
            select versions.run_id from {{ versions }} as versions
            where versions.changed_at = {{ runlens.build_started_at() }}
        )
    {%- elif changed == 'file_path' -%}
        file_path in (
            select lines.file_path from {{ lines }} as lines
            where lines.line_number = 0 and lines.loaded_at = {{ runlens.build_started_at() }}
        )
    {%- else -%}
        {{ exceptions.raise_compiler_error("changed must be computed_at, changed_at, loaded_at, run_id or file_path, not " ~ changed) }}
    {%- endif -%}
{%- endmacro %}
