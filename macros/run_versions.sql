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
        delete from {{ this }}
        where run_id in ({{ runlens.changed_run_ids() }})
    {%- endif %}
{%- endmacro %}

{#- The runs that changed after the newest computed_at this model holds (every run when it is empty). -#}
{% macro changed_run_ids() -%}
    select versions.run_id
    from {{ ref('int_run_versions') }} as versions
    where versions.changed_at > (
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
