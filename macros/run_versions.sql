{#- How the per-run models stay in step with the logs. int_run_versions gives every run a version
    and changed_at, the start of the build that first saw it. A per-run model writes computed_at,
    the start of the build that computed the row; on a refresh it recomputes exactly the runs that
    changed after the newest computed_at it holds: a pre-hook deletes their rows, and the model
    computes them again (a run whose lines are gone is only deleted). A build that failed half way
    leaves the model's newest computed_at where it was, so the next build catches up. A full
    build computes every run. -#}

{#- Pre-hook: forget the rows of the runs that changed since this model last computed. -#}
{% macro delete_rows_of_changed_runs() -%}
    {% if is_incremental() -%}
        {{ runlens.require_computed_at() }}
        delete from {{ this }}
        where run_id in ({{ runlens.changed_run_ids() }})
    {%- endif %}
{%- endmacro %}

{#- The runs that changed after the newest computed_at this model holds (every run when it is empty). -#}
{% macro changed_run_ids() -%}
    select versions.run_id
    from {{ ref('int_run_versions') }} as versions
    where versions.changed_at > {{ runlens.newest_computed_at() }}
{%- endmacro %}

{#- The newest computed_at this model holds; long before any build when it is empty. -#}
{% macro newest_computed_at() -%}
    (
        select coalesce(max(computed.computed_at), cast('1900-01-01' as {{ dbt.type_timestamp() }}))
        from {{ this }} as computed
    )
{%- endmacro %}

{#- Filter on a run_id column: the runs this model must compute (every run on a full build). -#}
{% macro is_run_to_compute(run_id_column) -%}
    {% if is_incremental() -%}
        {{ run_id_column }} in ({{ runlens.changed_run_ids() }})
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}

{#- The marts that follow the as-of time (models/marts/live) hold rows of runs still going, which
    move with the as-of time and their peers even when their lines did not change: they recompute
    the runs that changed and every incomplete run (fct_runs.status), and keep the rest. -#}

{#- Pre-hook: forget the rows of the runs that changed since this model last computed, and of
    every incomplete run. -#}
{% macro delete_rows_of_changed_or_live_runs() -%}
    {% if is_incremental() -%}
        {{ runlens.require_computed_at() }}
        delete from {{ this }}
        where
            run_id in ({{ runlens.changed_run_ids() }})
            or run_id in ({{ runlens.incomplete_run_ids() }})
    {%- endif %}
{%- endmacro %}

{% macro incomplete_run_ids() -%}
    select incomplete.run_id from {{ ref('fct_runs') }} as incomplete where incomplete.status = 'incomplete'
{%- endmacro %}

{#- Filter on a run_id column: the runs this model must compute (every run on a full build). -#}
{% macro is_run_to_compute_or_live(run_id_column) -%}
    {% if is_incremental() -%}
        (
            {{ run_id_column }} in ({{ runlens.changed_run_ids() }})
            or {{ run_id_column }} in ({{ runlens.incomplete_run_ids() }})
        )
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}

{#- A table an earlier runlens built without computed_at (a mart that was rebuilt whole then)
    cannot be refreshed by run: stop with the words of dbt's on_schema_change failure, which
    `runlens build` answers with a full refresh (runlens/refresh/build.py, OUT_OF_SYNC). -#}
{% macro require_computed_at(also=[]) -%}
    {%- if execute -%}
        {%- set names = adapter.get_columns_in_relation(this) | map(attribute='name') | map('lower') | list -%}
        {%- for column in ['computed_at'] + also if column not in names -%}
            {{ exceptions.raise_compiler_error(
                "The source and target schemas on this incremental model are out of sync: " ~ this
                ~ " has no " ~ column ~ " column (an earlier runlens built it); build it again with --full-refresh"
            ) }}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}
