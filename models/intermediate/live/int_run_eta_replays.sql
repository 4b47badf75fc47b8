-- Each completed event-log run replayed as if it were live at each of its markers (def_eta_replays):
-- its peers picked as the live rule picks them (the other completed runs of its task that passed
-- the marker, when at least eta_min_task_peers did, else those of its collection), its estimate and
-- range computed as def_live_eta computes a live run's at the instant it reached the marker, and
-- what it truly still needed after it. The calibration of the live ranges (def_eta_calibration)
-- reads these replays. Each replay has its own peers (every other completed run of its task or
-- collection at that marker), so the model grows with completed runs x peers x markers: only each
-- task's latest var eta_calibration_max_runs completed runs are replayed and serve as peers, which
-- bounds it per task. Nothing here depends on the as-of time.
-- Incremental by collection: a replay's peers are runs of its collection, so a refresh computes
-- again the collections whose runs changed (macros/run_groups.sql) and keeps the others' replays;
-- a build with other values of the vars it computes with (eta_replay_vars) computes every one.
-- Grain: one row per completed event-log run and marker label it had time still to run after.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config(
    'collection', pre_hook="{{ runlens.delete_rows_of_changed_groups(computed_with=runlens.eta_replay_vars()) }}"
)) }}
{%- set double = var('runlens_types')[target.type].double %}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_group_to_compute('collection') }}
),

progress as (
    select * from {{ ref('int_run_marker_progress') }}
),

peer_runs as (
    -- the peers of the live rule (macros/live_runs.sql), newest first within their task
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.active_seconds,
        row_number() over (
            partition by runs.collection, runs.task order by runs.ended_at desc, runs.run_id asc
        ) as recency
    from runs
    where {{ runlens.is_peer_run('runs') }}
),

completed_runs as (
    -- the runs replayed and their peers: each task's latest var eta_calibration_max_runs
    select
        run_id,
        collection,
        task,
        active_seconds
    from peer_runs
    where recency <= {{ var('eta_calibration_max_runs') }}
),

completed_progress as (
    -- where each completed run was at each marker (the first of its label), and what it still needed
    select
        completed_runs.run_id,
        completed_runs.collection,
        completed_runs.task,
        progress.marker_label,
        progress.active_seconds_to_marker,
        completed_runs.active_seconds - progress.active_seconds_to_marker as remaining_seconds
    from progress
    inner join completed_runs on progress.run_id = completed_runs.run_id
    where progress.is_first_of_label
),

replay_points as (
    -- a run at a marker it still had time to run after (a millisecond at least: less is the float
    -- error of summing its intervals): a live run is never at its end
    select * from completed_progress
    where remaining_seconds >= 0.001
),

task_candidates as (
    -- the other completed runs of the replayed run's task at the marker
    select
        replay_points.run_id,
        replay_points.marker_label,
        peers.active_seconds_to_marker,
        peers.remaining_seconds
    from replay_points
    inner join completed_progress as peers
        on replay_points.collection = peers.collection
        and replay_points.task = peers.task
        and replay_points.marker_label = peers.marker_label
        and replay_points.run_id <> peers.run_id
),

task_counts as (
    select
        run_id,
        marker_label,
        count(*) as peer_runs
    from task_candidates
    group by run_id, marker_label
),

collection_points as (
    -- the replays with fewer than eta_min_task_peers task peers: they take their collection's
    select replay_points.*
    from replay_points
    left join task_counts
        on replay_points.run_id = task_counts.run_id
        and replay_points.marker_label = task_counts.marker_label
    where coalesce(task_counts.peer_runs, 0) < {{ var('eta_min_task_peers') }}
),

peer_markers as (
    select
        'task' as peer_set,
        task_candidates.*
    from task_candidates
    inner join task_counts
        on task_candidates.run_id = task_counts.run_id
        and task_candidates.marker_label = task_counts.marker_label
    where task_counts.peer_runs >= {{ var('eta_min_task_peers') }}
    union all
    select
        'collection' as peer_set,
        collection_points.run_id,
        collection_points.marker_label,
        peers.active_seconds_to_marker,
        peers.remaining_seconds
    from collection_points
    inner join completed_progress as peers
        on collection_points.collection = peers.collection
        and collection_points.marker_label = peers.marker_label
        and collection_points.run_id <> peers.run_id
),

peer_paces as (
    select
        run_id,
        marker_label,
        {{ runlens.percentile('active_seconds_to_marker', 0.5) }} as median_seconds_to_marker
    from peer_markers
    group by run_id, marker_label
),

paced_peers as (
    -- what each peer still needed at the peers' median pace (def_live_eta, as int_marker_peer_statistics)
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
        on peer_markers.run_id = peer_paces.run_id
        and peer_markers.marker_label = peer_paces.marker_label
),

peer_summaries as (
    select
        run_id,
        marker_label,
        min(peer_set) as peer_set,
        count(*) as peer_runs,
        min(median_seconds_to_marker) as median_seconds_to_marker,
        {{ runlens.percentile('paced_remaining_seconds', 0.25) }} as remaining_p25_seconds,
        {{ runlens.percentile('paced_remaining_seconds', 0.5) }} as remaining_p50_seconds,
        {{ runlens.percentile('paced_remaining_seconds', 0.75) }} as remaining_p75_seconds
    from paced_peers
    group by run_id, marker_label
),

estimated as (
    -- as a live run's estimate at the instant it reached the marker (0 active seconds since it)
    select
        replay_points.run_id,
        replay_points.collection,
        replay_points.task,
        replay_points.marker_label,
        peer_summaries.peer_set,
        peer_summaries.peer_runs,
        replay_points.active_seconds_to_marker,
        case
            when peer_summaries.median_seconds_to_marker > 0
                then replay_points.active_seconds_to_marker / peer_summaries.median_seconds_to_marker
            else cast(1 as {{ double }})
        end as pace_ratio,
        peer_summaries.remaining_p25_seconds,
        peer_summaries.remaining_p50_seconds,
        peer_summaries.remaining_p75_seconds,
        replay_points.remaining_seconds as true_remaining_seconds
    from replay_points
    inner join peer_summaries
        on replay_points.run_id = peer_summaries.run_id
        and replay_points.marker_label = peer_summaries.marker_label
),

ranged as (
    select
        *,
        remaining_p25_seconds * pace_ratio as remaining_low_seconds,
        remaining_p50_seconds * pace_ratio as remaining_seconds,
        remaining_p75_seconds * pace_ratio as remaining_high_seconds
    from estimated
),

final as (
    select
        run_id,
        collection,
        task,
        marker_label,
        peer_set,
        peer_runs,
        active_seconds_to_marker,
        pace_ratio,
        remaining_low_seconds,
        remaining_seconds,
        remaining_high_seconds,
        true_remaining_seconds,
        true_remaining_seconds >= remaining_low_seconds
        and true_remaining_seconds <= remaining_high_seconds as is_held,
        -- the smallest factor on the range's half-widths around the estimate that holds the truth
        -- (def_eta_calibration); NULL when none would: the half-width on the truth's side is 0
        case
            when true_remaining_seconds = remaining_seconds then cast(0 as {{ double }})
            when true_remaining_seconds > remaining_seconds and remaining_high_seconds > remaining_seconds
                then (true_remaining_seconds - remaining_seconds) / (remaining_high_seconds - remaining_seconds)
            when true_remaining_seconds < remaining_seconds and remaining_low_seconds < remaining_seconds
                then (remaining_seconds - true_remaining_seconds) / (remaining_seconds - remaining_low_seconds)
        end as scale_to_hold,
        {{ runlens.build_started_at() }} as computed_at,
        {{ runlens.string_literal(runlens.settings_text(runlens.eta_replay_vars())) }} as computed_with
    from ranged
)

select * from final
