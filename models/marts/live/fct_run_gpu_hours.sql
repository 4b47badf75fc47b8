-- depends_on: {{ ref('int_run_versions') }}
-- GPU-hours of each run: the GPUs its run_start names times its active time; a live run's active
-- time is the time its segments ran (to the as-of time while it runs) (def_gpu_hours).
-- Grain: one row per run with a collection. Incremental by run: a refresh computes the runs that
-- changed and every incomplete run (macros/run_versions.sql).
{{ config(**runlens.incremental_config('live_run')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null and {{ runlens.is_run_to_compute_or_live('run_id') }}
),

segments as (
    select * from {{ ref('fct_run_segments') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

resources as (
    select * from {{ ref('int_run_resources') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

running_times as (
    select
        run_id,
        sum(seconds) as running_seconds
    from segments
    group by run_id
),

active_times as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        case when runs.status = 'incomplete' then running_times.running_seconds else runs.active_seconds end
            as active_seconds
    from runs
    left join running_times on runs.run_id = running_times.run_id
),

final as (
    select
        active_times.run_id,
        active_times.collection,
        active_times.task,
        resources.gpus,
        active_times.active_seconds,
        resources.gpus * active_times.active_seconds / 3600 as gpu_hours,
        {{ runlens.build_started_at() }} as computed_at
    from active_times
    left join resources on active_times.run_id = resources.run_id
)

select * from final
