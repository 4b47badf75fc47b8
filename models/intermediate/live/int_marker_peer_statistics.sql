-- The completed runs that passed a marker, summed up for the live runs' estimates (def_live_eta,
-- def_percentiles, def_stalled): how many passed it, their median active seconds to it, the 25th,
-- 50th and 75th percentiles of the active seconds they still needed after it (each at that median
-- pace), and the 95th percentile of the interval that followed it. A peer is an analyzed run of a
-- collection measured by its event log, matched at the first of its markers with the label. The
-- summaries are those the live runs need: at each live run's last marker (macros/live_runs.sql),
-- its task's, and its collection's where fewer than eta_min_task_peers runs of the task passed the
-- marker. fct_run_live_status joins each live run to one of them, so it grows with runs plus peers, never
-- runs x peers. Nothing here depends on the as-of time.
-- Incremental by collection: every summary and the live runs it is for are of one collection, so a
-- refresh computes again the collections whose runs changed (macros/run_groups.sql) and keeps the
-- others' summaries; a build with another eta_min_task_peers computes every one.
-- Grain: one row per peer set (task or collection), collection, task and marker label.
-- depends_on: {{ ref('int_run_groups') }}
{{ config(**runlens.incremental_config(
    'collection', pre_hook="{{ runlens.delete_rows_of_changed_groups(computed_with=['eta_min_task_peers']) }}"
)) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_group_to_compute('collection') }}
),

progress as {{ runlens.streamed_cte() }} (
    select * from {{ ref('int_run_marker_progress') }}
),

live_markers as (
    -- the markers of the live runs, the last each reached first (macros/live_runs.sql, as fct_run_live_status)
    select
        runs.collection,
        runs.task,
        progress.marker_label,
        row_number() over (
            partition by progress.run_id
            order by {{ runlens.last_reached_first('progress') }}
        ) as recency_rank
    from progress
    inner join runs on progress.run_id = runs.run_id
    where {{ runlens.is_live_run('runs') }}
),

live_positions as (
    -- where the live runs are: the only summaries fct_run_live_status needs
    select distinct
        collection,
        coalesce(task, '') as task_key,
        marker_label
    from live_markers
    where recency_rank = 1
),

completed_runs as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.active_seconds
    from runs
    where {{ runlens.is_peer_run('runs') }}
),

completed_progress as {{ runlens.streamed_cte() }} (
    -- read twice (the task peers, the collection peers): the join done again costs less than
    -- holding its rows, which spilled past the memory limit at 1M runs
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

final as (
    select
        peer_set,
        collection,
        case when peer_set = 'task' then task_key end as task,
        marker_label,
        peer_runs,
        median_seconds_to_marker,
        remaining_p25_seconds,
        remaining_p50_seconds,
        remaining_p75_seconds,
        next_interval_p95_seconds,
        {{ runlens.build_started_at() }} as computed_at,
        {{ runlens.string_literal(runlens.settings_text(['eta_min_task_peers'])) }} as computed_with
    from peer_summaries
)

select * from final
