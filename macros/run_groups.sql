{#- How the rollups stay in step with the logs. A rollup summarizes the runs of a task (collection
    and task) or of a collection, and its rows depend on every run of the group, so when a run
    changes it recomputes the run's whole group, and only the groups that changed runs belong to.
    int_run_groups says, for every build that changed a run, which group the run was in; the groups
    to recompute are every group a run that changed after the newest computed_at the rollup holds
    belongs to or ever belonged to (so a run that moved takes its old group along). A pre-hook
    deletes those groups' rows, and the model computes them again from their runs. As with the
    per-run models (macros/run_versions.sql), a build that failed half way leaves the rollup's
    newest computed_at where it was, so the next build catches up, and a full build computes
    every group. A rollup computed with dbt vars names them (computed_with): each row keeps their
    values, and a build with other values deletes every row, so that it computes every group
    again, as a full build would. -#}

{#- The values of the named dbt vars, as JSON text with sorted keys: what a row was computed with. -#}
{% macro settings_text(var_names) -%}
    {%- set values = {} -%}
    {%- for name in var_names | sort -%}
        {%- do values.update({name: var(name)}) -%}
    {%- endfor -%}
    {{ return(tojson(values, sort_keys=true)) }}
{%- endmacro %}

{#- The groups (collection, task) of the runs that changed after the newest computed_at this model
    holds (every group when it is empty). -#}
{% macro changed_groups() -%}
    select distinct
        history.collection as changed_collection,
        history.task as changed_task
    from {{ ref('int_run_groups') }} as history
    where history.run_id in (
        select changed.run_id
        from {{ ref('int_run_groups') }} as changed
        where changed.computed_at > {{ runlens.newest_computed_at() }}
    )
{%- endmacro %}

{#- Filter on the group columns of the one table a query reads: the groups this model must compute
    (every group on a full build). Give task_column for a rollup by task, leave it out for one by
    collection. NULL matches as '': the runs without a collection, or without a task, are a group
    (a collection is never '', and a task of '' would only be computed again with them). -#}
{% macro is_group_to_compute(collection_column, task_column=none) -%}
    {% if is_incremental() and task_column -%}
        (coalesce({{ collection_column }}, ''), coalesce({{ task_column }}, '')) in (
            select coalesce(changed_groups.changed_collection, ''), coalesce(changed_groups.changed_task, '')
            from ({{ runlens.changed_groups() }}) as changed_groups
        )
    {%- elif is_incremental() -%}
        coalesce({{ collection_column }}, '') in (
            select coalesce(changed_groups.changed_collection, '') from ({{ runlens.changed_groups() }}) as changed_groups
        )
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}

{#- Pre-hook: forget the rows of the groups that changed since this model last computed, and every
    row when computed_with (var names) says the vars it was computed with have other values now. -#}
{% macro delete_rows_of_changed_groups(task_column=none, computed_with=none) -%}
    {% if is_incremental() -%}
        {{ runlens.require_computed_at(['computed_with'] if computed_with else []) }}
        delete from {{ this }}
        where {{ runlens.is_group_to_compute('collection', task_column) }}
        {%- if computed_with %}
            or computed_with != {{ runlens.string_literal(runlens.settings_text(computed_with)) }}
        {%- endif %}
    {%- endif %}
{%- endmacro %}

{#- Pre-hook of a collection rollup whose rows follow the clock while a run of the collection is
    open, running or stalled (agg_collection_span: the span ends at the as-of time, the longest run
    is counted by its expected length): forget the rows of the collections whose runs changed, of
    those whose row was computed with a run open (is_open) and of those with a run open now
    (open_segments: fct_run_segments). The model then computes every collection it holds no row
    of (is_collection_without_row). -#}
{% macro delete_rows_of_changed_or_open_collections(open_segments) -%}
    {% if is_incremental() -%}
        {{ runlens.require_computed_at() }}
        delete from {{ this }}
        where
            {{ runlens.is_group_to_compute('collection') }}
            or is_open
            or collection in (
                select open_segments.collection from {{ open_segments }} as open_segments where open_segments.is_open
            )
    {%- endif %}
{%- endmacro %}

{#- Filter on a collection column: the collections this model holds no row of (every collection on
    a full build), after a pre-hook deleted the rows to compute again. -#}
{% macro is_collection_without_row(collection_column) -%}
    {% if is_incremental() -%}
        {{ collection_column }} not in (select computed.collection from {{ this }} as computed)
    {%- else -%}
        true
    {%- endif %}
{%- endmacro %}
