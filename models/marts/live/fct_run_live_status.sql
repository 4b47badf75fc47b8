-- The runs still going at the as-of time: how far each has got, how long it has been silent,
-- whether it is running, stalled or abandoned, and when a running one will likely finish, from the
-- completed runs that passed the same marker (def_live_runs, def_live_eta, def_percentiles,
-- def_stalled, def_abandoned). The peers come summed up per collection, task and marker
-- (int_marker_peer_statistics), and each live run joins one summary: the model grows with runs
-- plus peers, never runs x peers. The range is also given calibrated on the sweep's own finished runs
-- (def_eta_calibration: its half-widths scaled by its task's factor, else its collection's,
-- agg_task_eta_calibration, agg_collection_eta_calibration), beside the peers' uncorrected one.
-- Grain: one row per incomplete run with a run_start.
{%- set double = var('runlens_types')[target.type].double %}
with

build as (
    select as_of_at from {{ ref('dim_build') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
),

progress as (
    select * from {{ ref('int_run_marker_progress') }}
),

peer_statistics as (
    select * from {{ ref('int_marker_peer_statistics') }}
),

task_calibration as (
    select * from {{ ref('agg_task_eta_calibration') }}
),

collection_calibration as (
    select * from {{ ref('agg_collection_eta_calibration') }}
),

live_runs as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.started_at,
        runs.last_event_at,
        runs.downtime_seconds,
        runs.restarts,
        -- an as-of time pinned before a run's latest event cannot cut what its log shows: for
        -- that run, "now" is its latest event (def_live_runs)
        case
            when runs.last_event_at > build.as_of_at then runs.last_event_at else build.as_of_at
        end as as_of_at
    from runs
    cross join build
    where {{ runlens.is_live_run('runs') }}
),

ranked_markers as (
    -- a restart's run_start is no progress: it is the last marker reached only when it is the only one
    select
        progress.run_id,
        progress.marker_label,
        progress.event_at,
        progress.active_seconds_to_marker,
        row_number() over (
            partition by progress.run_id
            order by {{ runlens.last_reached_first('progress') }}
        ) as recency_rank
    from progress
    inner join live_runs on progress.run_id = live_runs.run_id
),

last_markers as (
    select * from ranked_markers
    where recency_rank = 1
),

completed_runs as (
    -- the peers' whole runs (macros/live_runs.sql)
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.active_seconds
    from runs
    where {{ runlens.is_peer_run('runs') }}
),

longest_completed as (
    -- the longest whole run (active seconds) each task and each collection ever took (def_abandoned)
    select
        'task' as peer_set,
        collection,
        task as task_key,
        max(active_seconds) as longest_run_seconds
    from completed_runs
    where task is not null
    group by collection, task
    union all
    select
        'collection' as peer_set,
        collection,
        '' as task_key,
        max(active_seconds) as longest_run_seconds
    from completed_runs
    group by collection
),

chosen as (
    -- the task's summary when at least eta_min_task_peers runs of the task passed the marker, else
    -- the collection's, else none
    select
        live_runs.run_id,
        case
            when task_peers.peer_runs >= {{ var('eta_min_task_peers') }} then 'task'
            when collection_peers.peer_runs > 0 then 'collection'
            else 'none'
        end as peer_set,
        coalesce(longest_of_task.longest_run_seconds, longest_of_collection.longest_run_seconds)
            as longest_peer_run_seconds,
        case
            when longest_of_task.longest_run_seconds is not null then 'task'
            when longest_of_collection.longest_run_seconds is not null then 'collection'
        end as longest_peer_run_of
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    left join peer_statistics as task_peers
        on task_peers.peer_set = 'task'
        and live_runs.collection = task_peers.collection
        and coalesce(live_runs.task, '') = task_peers.task
        and last_markers.marker_label = task_peers.marker_label
    left join peer_statistics as collection_peers
        on collection_peers.peer_set = 'collection'
        and live_runs.collection = collection_peers.collection
        and last_markers.marker_label = collection_peers.marker_label
    left join longest_completed as longest_of_task
        on longest_of_task.peer_set = 'task'
        and live_runs.collection = longest_of_task.collection
        and live_runs.task = longest_of_task.task_key
    left join longest_completed as longest_of_collection
        on longest_of_collection.peer_set = 'collection'
        and live_runs.collection = longest_of_collection.collection
),

measured as (
    select
        live_runs.*,
        last_markers.marker_label as last_marker_label,
        last_markers.event_at as last_marker_at,
        last_markers.active_seconds_to_marker,
        {{ runlens.seconds_between('live_runs.started_at', 'live_runs.as_of_at') }} as elapsed_seconds,
        {{ runlens.seconds_between('live_runs.started_at', 'live_runs.as_of_at') }}
        - live_runs.downtime_seconds as active_elapsed_seconds,
        {{ runlens.seconds_between('live_runs.last_event_at', 'live_runs.as_of_at') }} as silent_seconds,
        chosen.peer_set,
        chosen.longest_peer_run_seconds,
        chosen.longest_peer_run_of,
        coalesce(peers.peer_runs, 0) as peer_runs,
        peers.median_seconds_to_marker as peer_median_seconds_to_marker,
        peers.remaining_p25_seconds,
        peers.remaining_p50_seconds,
        peers.remaining_p75_seconds,
        peers.next_interval_p95_seconds,
        -- the task's factor (its own, else its collection's), else its collection's for a task with
        -- no replay, else none: the uncorrected range (def_eta_calibration)
        case
            when task_calibration.collection is not null then task_calibration.range_calibration
            when collection_calibration.collection_range_scale is not null then 'collection'
            else 'none'
        end as range_calibration,
        case
            when task_calibration.collection is not null then task_calibration.range_scale
            else collection_calibration.collection_range_scale
        end as range_scale
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    inner join chosen on live_runs.run_id = chosen.run_id
    left join peer_statistics as peers
        on chosen.peer_set = peers.peer_set
        and live_runs.collection = peers.collection
        and coalesce(peers.task, '') = case when chosen.peer_set = 'task' then live_runs.task else '' end
        and last_markers.marker_label = peers.marker_label
    left join task_calibration
        on live_runs.collection = task_calibration.collection
        and live_runs.task = task_calibration.task
    left join collection_calibration on live_runs.collection = collection_calibration.collection
),

paced as (
    select
        *,
        case
            when peer_set = 'none' then null
            when peer_median_seconds_to_marker > 0 then active_seconds_to_marker / peer_median_seconds_to_marker
            else cast(1 as {{ double }})
        end as pace_ratio,
        greatest(
            cast({{ var('stall_multiple') }} as {{ double }}) * coalesce(next_interval_p95_seconds, 0),
            cast({{ var('stall_min_seconds') }} as {{ double }})
        ) as stall_threshold_seconds,
        -- active time since the marker: the estimates count from the marker, the run went on since
        active_elapsed_seconds - active_seconds_to_marker as active_seconds_since_marker
    from measured
),

capped as (
    -- the longest whole run of its peers, at most the horizon; the horizon alone without any
    -- completed run in its collection (def_abandoned)
    select
        *,
        case
            when longest_peer_run_seconds is null then cast({{ var('abandon_horizon_seconds') }} as {{ double }})
            when longest_peer_run_seconds < {{ var('abandon_horizon_seconds') }} then longest_peer_run_seconds
            else cast({{ var('abandon_horizon_seconds') }} as {{ double }})
        end as capped_peer_run_seconds
    from paced
),

thresholds as (
    select
        *,
        greatest(stall_threshold_seconds, capped_peer_run_seconds) as abandon_threshold_seconds,
        -- what the threshold is: the figure the silence was judged against
        case
            when stall_threshold_seconds > capped_peer_run_seconds then 'stall_threshold'
            when longest_peer_run_seconds is null then 'no_completed_run'
            when longest_peer_run_seconds >= {{ var('abandon_horizon_seconds') }} then 'horizon'
            else longest_peer_run_of
        end as abandon_threshold_basis
    from capped
),

states as (
    select
        *,
        case
            when silent_seconds > abandon_threshold_seconds then 'abandoned'
            when silent_seconds > stall_threshold_seconds then 'stalled'
            else 'running'
        end as live_status
    from thresholds
),

estimated as (
    -- a running run only: never below 0; NULL without peers (greatest skips NULLs on every
    -- engine, so it is not used alone)
    select
        *,
        case
            when live_status = 'running' and remaining_p25_seconds is not null
                then greatest(remaining_p25_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_low_seconds,
        case
            when live_status = 'running' and remaining_p50_seconds is not null
                then greatest(remaining_p50_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_point_seconds,
        case
            when live_status = 'running' and remaining_p75_seconds is not null
                then greatest(remaining_p75_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_high_seconds,
        -- the range's half-widths around the estimate, before the seconds since the marker are
        -- taken off, times range_scale (1 when uncalibrated)
        case
            when live_status = 'running' and remaining_p25_seconds is not null
                then greatest(
                    (
                        remaining_p50_seconds
                        - coalesce(range_scale, 1) * (remaining_p50_seconds - remaining_p25_seconds)
                    ) * pace_ratio
                    - active_seconds_since_marker,
                    0
                )
        end as remaining_calibrated_low_seconds,
        case
            when live_status = 'running' and remaining_p75_seconds is not null
                then greatest(
                    (
                        remaining_p50_seconds
                        + coalesce(range_scale, 1) * (remaining_p75_seconds - remaining_p50_seconds)
                    ) * pace_ratio
                    - active_seconds_since_marker,
                    0
                )
        end as remaining_calibrated_high_seconds
    from states
),

final as (
    select
        run_id,
        collection,
        task,
        live_status,
        as_of_at,
        started_at,
        last_event_at,
        last_marker_label,
        last_marker_at,
        restarts,
        elapsed_seconds,
        active_elapsed_seconds,
        active_seconds_to_marker,
        silent_seconds,
        stall_threshold_seconds,
        abandon_threshold_seconds,
        abandon_threshold_basis,
        peer_set,
        peer_runs,
        peer_median_seconds_to_marker,
        pace_ratio,
        remaining_low_seconds,
        remaining_point_seconds as remaining_seconds,
        remaining_high_seconds,
        {{ runlens.add_seconds('as_of_at', 'remaining_low_seconds') }} as estimated_finish_low_at,
        {{ runlens.add_seconds('as_of_at', 'remaining_point_seconds') }} as estimated_finish_at,
        {{ runlens.add_seconds('as_of_at', 'remaining_high_seconds') }} as estimated_finish_high_at,
        range_calibration,
        range_scale,
        remaining_calibrated_low_seconds,
        remaining_calibrated_high_seconds,
        {{ runlens.add_seconds('as_of_at', 'remaining_calibrated_low_seconds') }}
            as estimated_finish_calibrated_low_at,
        {{ runlens.add_seconds('as_of_at', 'remaining_calibrated_high_seconds') }}
            as estimated_finish_calibrated_high_at
    from estimated
)

select * from final
