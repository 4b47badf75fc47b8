-- How far each collection's sweep has got at the as-of time: its runs by state, when the last of
-- its running runs will likely finish, and the share of the sweep's expected run time already
-- spent (def_sweep_eta). Grain: one row per collection with runs.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null
),

live_runs as (
    select * from {{ ref('fct_run_live_status') }}
),

run_times as (
    -- active seconds so far: a finished run's, a live run's segments (def_gpu_hours)
    select * from {{ ref('fct_run_gpu_hours') }}
),

build as (
    select as_of_at from {{ ref('dim_build') }}
),

run_states as (
    select
        runs.run_id,
        runs.collection,
        runs.status,
        live_runs.live_status,
        live_runs.remaining_seconds,
        live_runs.estimated_finish_low_at,
        live_runs.estimated_finish_at,
        live_runs.estimated_finish_high_at,
        live_runs.estimated_finish_calibrated_low_at,
        live_runs.estimated_finish_calibrated_high_at,
        run_times.active_seconds as spent_seconds
    from runs
    left join live_runs on runs.run_id = live_runs.run_id
    left join run_times on runs.run_id = run_times.run_id
),

collection_states as (
    select
        collection,
        count(*) filter (where status = 'completed') as runs_completed,
        count(*) filter (where status = 'failed') as runs_failed,
        count(*) filter (where live_status = 'running') as runs_running,
        count(*) filter (where live_status = 'stalled') as runs_stalled,
        count(*) filter (where live_status = 'abandoned') as runs_abandoned,
        max(estimated_finish_low_at) filter (where live_status = 'running') as last_finish_low_at,
        max(estimated_finish_at) filter (where live_status = 'running') as last_finish_at,
        max(estimated_finish_high_at) filter (where live_status = 'running') as last_finish_high_at,
        max(estimated_finish_calibrated_low_at) filter (where live_status = 'running')
            as last_finish_calibrated_low_at,
        max(estimated_finish_calibrated_high_at) filter (where live_status = 'running')
            as last_finish_calibrated_high_at,
        coalesce(sum(spent_seconds), 0) as spent_seconds,
        count(*) filter (where live_status = 'running' and remaining_seconds is null) as live_runs_without_estimate,
        coalesce(sum(remaining_seconds) filter (where live_status = 'running'), 0) as remaining_seconds
    from run_states
    group by collection
),

shares as (
    select
        *,
        runs_running + runs_stalled > 0 as is_live,
        case
            when live_runs_without_estimate = 0 and spent_seconds + remaining_seconds > 0
                then spent_seconds / (spent_seconds + remaining_seconds)
        end as spent_share
    from collection_states
),

final as (
    select
        shares.collection,
        build.as_of_at,
        shares.runs_completed,
        shares.runs_failed,
        shares.runs_running,
        shares.runs_stalled,
        shares.runs_abandoned,
        shares.is_live,
        shares.last_finish_low_at,
        shares.last_finish_at,
        shares.last_finish_high_at,
        shares.last_finish_calibrated_low_at,
        shares.last_finish_calibrated_high_at,
        shares.spent_seconds,
        shares.remaining_seconds,
        shares.live_runs_without_estimate,
        shares.spent_share
    from shares
    cross join build
)

select * from final
