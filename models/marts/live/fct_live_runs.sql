-- The runs still going at the as-of time: how far each has got, how long it has been silent,
-- whether it has stalled, and when it will likely finish, from the completed runs that passed
-- the same marker (def_live_runs, def_live_eta, def_percentiles, def_stalled). Grain: one row per
-- incomplete run with a run_start.
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
    where runs.status = 'incomplete' and runs.collection is not null
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
            order by
                case when progress.event_type = 'run_start' and progress.marker_index > 1 then 1 else 0 end,
                progress.marker_index desc
        ) as recency_rank
    from progress
    inner join live_runs on progress.run_id = live_runs.run_id
),

last_markers as (
    select * from ranked_markers
    where recency_rank = 1
),

peer_markers as (
    -- where each completed event-log run was at each marker, and what it still needed after it
    select
        runs.run_id as peer_run_id,
        runs.collection,
        runs.task,
        progress.marker_label,
        progress.active_seconds_to_marker,
        runs.active_seconds - progress.active_seconds_to_marker as remaining_seconds,
        progress.next_interval_seconds
    from progress
    inner join runs on progress.run_id = runs.run_id
    where runs.is_analyzed and runs.measurement_source = 'event_log' and progress.is_first_of_label
),

candidates as (
    select
        live_runs.run_id,
        peer_markers.peer_run_id,
        peer_markers.task = live_runs.task as is_same_task,
        peer_markers.active_seconds_to_marker,
        peer_markers.remaining_seconds,
        peer_markers.next_interval_seconds
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    inner join peer_markers
        on live_runs.collection = peer_markers.collection
        and last_markers.marker_label = peer_markers.marker_label
),

peer_sets as (
    select
        live_runs.run_id,
        case
            when count(candidates.peer_run_id) filter (where candidates.is_same_task) >= {{ var('eta_min_task_peers') }}
                then 'task'
            when count(candidates.peer_run_id) > 0 then 'collection'
            else 'none'
        end as peer_set
    from live_runs
    left join candidates on live_runs.run_id = candidates.run_id
    group by live_runs.run_id
),

peers as (
    select candidates.*
    from candidates
    inner join peer_sets on candidates.run_id = peer_sets.run_id
    where peer_sets.peer_set = 'collection' or (peer_sets.peer_set = 'task' and candidates.is_same_task)
),

peer_remaining as (
    select
        run_id,
        count(*) as peer_values,
        {{ runlens.percentile('remaining_seconds', 0.25) }} as remaining_p25_seconds,
        {{ runlens.percentile('remaining_seconds', 0.5) }} as remaining_p50_seconds,
        {{ runlens.percentile('remaining_seconds', 0.75) }} as remaining_p75_seconds
    from peers
    where remaining_seconds is not null
    group by run_id
),

peer_pace as (
    select
        run_id,
        {{ runlens.percentile('active_seconds_to_marker', 0.5) }} as median_seconds_to_marker
    from peers
    where active_seconds_to_marker is not null
    group by run_id
),

peer_next_interval as (
    select
        run_id,
        {{ runlens.percentile('next_interval_seconds', 0.95) }} as next_interval_p95_seconds
    from peers
    where next_interval_seconds is not null
    group by run_id
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
        peer_sets.peer_set,
        coalesce(peer_remaining.peer_values, 0) as peer_runs,
        peer_pace.median_seconds_to_marker as peer_median_seconds_to_marker,
        peer_remaining.remaining_p25_seconds,
        peer_remaining.remaining_p50_seconds,
        peer_remaining.remaining_p75_seconds,
        peer_next_interval.next_interval_p95_seconds
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    inner join peer_sets on live_runs.run_id = peer_sets.run_id
    left join peer_remaining on live_runs.run_id = peer_remaining.run_id
    left join peer_pace on live_runs.run_id = peer_pace.run_id
    left join peer_next_interval on live_runs.run_id = peer_next_interval.run_id
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

estimated as (
    -- never below 0; NULL without peers (greatest skips NULLs on every engine, so it is not used alone)
    select
        *,
        case
            when remaining_p25_seconds is not null
                then greatest(remaining_p25_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_low_seconds,
        case
            when remaining_p50_seconds is not null
                then greatest(remaining_p50_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_point_seconds,
        case
            when remaining_p75_seconds is not null
                then greatest(remaining_p75_seconds * pace_ratio - active_seconds_since_marker, 0)
        end as remaining_high_seconds
    from paced
),

final as (
    select
        run_id,
        collection,
        task,
        case when silent_seconds > stall_threshold_seconds then 'stalled' else 'running' end as live_status,
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
        peer_set,
        peer_runs,
        peer_median_seconds_to_marker,
        pace_ratio,
        remaining_low_seconds,
        remaining_point_seconds as remaining_seconds,
        remaining_high_seconds,
        {{ runlens.add_seconds('as_of_at', 'remaining_low_seconds') }} as estimated_finish_low_at,
        {{ runlens.add_seconds('as_of_at', 'remaining_point_seconds') }} as estimated_finish_at,
        {{ runlens.add_seconds('as_of_at', 'remaining_high_seconds') }} as estimated_finish_high_at
    from estimated
)

select * from final
