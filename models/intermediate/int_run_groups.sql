-- depends_on: {{ ref('int_run_versions') }}
-- Which collection and task each run belonged to, one row for every build that changed the run
-- (new, changed or deleted lines): its collection and task as that build saw them (NULL once its
-- lines or its run_start are gone). The rollups that summarize a task or a collection recompute
-- only the groups that a changed run belongs to or ever belonged to (macros/run_groups.sql), so a
-- run that moved from one task to another is taken out of the old task's rows too. Append-only:
-- it grows by the runs each build changes. Grain: one row per run_id and computed_at.
{{ config(**runlens.incremental_config('append')) }}
with

changed_runs as (
    select run_id from {{ ref('int_run_versions') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

attributes as (
    select
        run_id,
        collection,
        task
    from {{ ref('int_run_attributes') }}
),

final as (
    select
        changed_runs.run_id,
        attributes.collection,
        attributes.task,
        {{ runlens.build_started_at() }} as computed_at
    from changed_runs
    left join attributes on changed_runs.run_id = attributes.run_id
)

select * from final
