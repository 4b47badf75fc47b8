-- The runs still going at the as-of time: how far each has got, how long it has been silent,
-- whether it is running, stalled or abandoned, and when a running one will likely finish, from the
-- completed runs that passed the same marker (def_live_runs, def_live_eta, def_percentiles,
-- def_stalled, def_abandoned). The peers are summed up per collection, task and marker first, only
-- where a live run is, and each live run joins one summary: the model grows with runs plus peers,
-- never runs x peers.
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

live_positions as (
    -- where the live runs are: the only peer summaries this model needs
    select distinct
        live_runs.collection,
        coalesce(live_runs.task, '') as task_key,
        last_markers.marker_label
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
),

completed_runs as (
    select
        run_id,
        collection,
        task,
        active_seconds
    from runs
    where is_analyzed and measurement_source = 'event_log' and collection is not null
),

completed_progress as (
    -- where each completed event-log run was at each marker, and what it still needed after it
    select
        completed_runs.collection,
        completed_runs.task,
        progress.marker_label,
        progress.active_seconds_to_marker,
        completed_runs.active_seconds - progress.active_seconds_to_marker as remaining_seconds,
        progress.next_interval_seconds
    from progress
    inner join completed_runs on progress.run_id = completed_runs.run_id
    where progress.is_first_of_label
),

task_peer_markers as (
    -- the completed runs of a live run's task at its marker
    select
        'task' as peer_set,
        completed_progress.*
    from completed_progress
    inner join live_positions
        on completed_progress.collection = live_positions.collection
        and completed_progress.task = live_positions.task_key
        and completed_progress.marker_label = live_positions.marker_label
),

task_peer_counts as (
    select
        collection,
        task,
        marker_label,
        count(*) as peer_runs
    from task_peer_markers
    group by collection, task, marker_label
),

collection_positions as (
    -- the live positions with fewer than eta_min_task_peers task peers: they need their collection's
    select distinct
        live_positions.collection,
        live_positions.marker_label
    from live_positions
    left join task_peer_counts
        on live_positions.collection = task_peer_counts.collection
        and live_positions.task_key = task_peer_counts.task
        and live_positions.marker_label = task_peer_counts.marker_label
    where coalesce(task_peer_counts.peer_runs, 0) < {{ var('eta_min_task_peers') }}
),

peer_markers as (
    -- each summary's peers: once in their task's, once in their collection's where it is needed
    select * from task_peer_markers
    union all
    select
        'collection' as peer_set,
        completed_progress.collection,
        cast(null as {{ dbt.type_string() }}) as task,
        completed_progress.marker_label,
        completed_progress.active_seconds_to_marker,
        completed_progress.remaining_seconds,
        completed_progress.next_interval_seconds
    from completed_progress
    inner join collection_positions
        on completed_progress.collection = collection_positions.collection
        and completed_progress.marker_label = collection_positions.marker_label
),

peer_paces as (
    -- the median active seconds to the marker in each summary: a peer's pace is its own over it
    select
        peer_set,
        collection,
        coalesce(task, '') as task_key,
        marker_label,
        {{ runlens.percentile('active_seconds_to_marker', 0.5) }} as median_seconds_to_marker
    from peer_markers
    group by peer_set, collection, coalesce(task, ''), marker_label
),

paced_peers as (
    -- what each peer still needed after the marker at the summary's median pace: its pace
    -- differences taken out, so the spread left is what no pace can tell (def_live_eta)
    select
        peer_markers.*,
        peer_paces.median_seconds_to_marker,
        case
            when peer_paces.median_seconds_to_marker > 0 and peer_markers.active_seconds_to_marker > 0
                then
                    peer_markers.remaining_seconds
                    * peer_paces.median_seconds_to_marker / peer_markers.active_seconds_to_marker
            else peer_markers.remaining_seconds
        end as paced_remaining_seconds
    from peer_markers
    inner join peer_paces
        on peer_markers.peer_set = peer_paces.peer_set
        and peer_markers.collection = peer_paces.collection
        and coalesce(peer_markers.task, '') = peer_paces.task_key
        and peer_markers.marker_label = peer_paces.marker_label
),

peer_summaries as (
    select
        peer_set,
        collection,
        coalesce(task, '') as task_key,
        marker_label,
        count(*) as peer_runs,
        min(median_seconds_to_marker) as median_seconds_to_marker,
        {{ runlens.percentile('paced_remaining_seconds', 0.25) }} as remaining_p25_seconds,
        {{ runlens.percentile('paced_remaining_seconds', 0.5) }} as remaining_p50_seconds,
        {{ runlens.percentile('paced_remaining_seconds', 0.75) }} as remaining_p75_seconds,
        {{ runlens.percentile('next_interval_seconds', 0.95) }} as next_interval_p95_seconds
    from paced_peers
    group by peer_set, collection, coalesce(task, ''), marker_label
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
            as longest_peer_run_seconds
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    left join peer_summaries as task_peers
        on task_peers.peer_set = 'task'
        and live_runs.collection = task_peers.collection
        and coalesce(live_runs.task, '') = task_peers.task_key
        and last_markers.marker_label = task_peers.marker_label
    left join peer_summaries as collection_peers
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
        coalesce(peers.peer_runs, 0) as peer_runs,
        peers.median_seconds_to_marker as peer_median_seconds_to_marker,
        peers.remaining_p25_seconds,
        peers.remaining_p50_seconds,
        peers.remaining_p75_seconds,
        peers.next_interval_p95_seconds
    from live_runs
    inner join last_markers on live_runs.run_id = last_markers.run_id
    inner join chosen on live_runs.run_id = chosen.run_id
    left join peer_summaries as peers
        on chosen.peer_set = peers.peer_set
        and live_runs.collection = peers.collection
        and peers.task_key = case when chosen.peer_set = 'task' then live_runs.task else '' end
        and last_markers.marker_label = peers.marker_label
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

thresholds as (
    select
        *,
        greatest(
            stall_threshold_seconds,
            case
                when longest_peer_run_seconds is null then cast({{ var('abandon_horizon_seconds') }} as {{ double }})
                when longest_peer_run_seconds < {{ var('abandon_horizon_seconds') }} then longest_peer_run_seconds
                else cast({{ var('abandon_horizon_seconds') }} as {{ double }})
            end
        ) as abandon_threshold_seconds
    from paced
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
        end as remaining_high_seconds
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
