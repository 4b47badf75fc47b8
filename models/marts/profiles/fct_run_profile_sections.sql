-- depends_on: {{ ref('int_run_versions') }}
-- Each run's profiler sections (def_profile_sections): the seconds of every section of its latest
-- profile, the `unattributed` rest, each as a share of the run's profiled wall time, and whether
-- that profile was the run's final one. Grain: one row per run and section.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

profiles as (
    select * from {{ ref('int_run_profiles') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

sections as (
    select * from {{ ref('int_run_profile_sections') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

final as (
    select
        sections.run_id,
        runs.collection,
        runs.task,
        sections.section,
        sections.seconds,
        case when profiles.wall_seconds > 0 then sections.seconds / profiles.wall_seconds end as share_of_wall,
        profiles.wall_seconds as profiled_wall_seconds,
        profiles.is_final as is_final_profile,
        runs.is_analyzed,
        {{ runlens.build_started_at() }} as computed_at
    from sections
    inner join profiles on sections.run_id = profiles.run_id
    inner join runs on sections.run_id = runs.run_id
)

select * from final
