-- Each rank of a run with several ranks: how far it got, how long it waited for the slowest rank
-- at the markers and by its busy time, how often it was the last or the busiest, and whether it
-- stopped while the others went on (def_ranks). Grain: one row per run with ranks and rank.
with

rank_markers as (
    select * from {{ ref('int_run_rank_markers') }}
),

rank_profiles as (
    select * from {{ ref('int_run_rank_profiles') }}
),

runs as (
    select * from {{ ref('int_run_attributes') }}
),

declared_sizes as (
    select
        run_id,
        max(world_size) as world_size
    from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and world_size is not null
    group by run_id
),

rank_progress as (
    select
        run_id,
        rank,
        min(event_at) filter (where event_type = 'run_start') as started_at,
        max(event_at) filter (where event_type = 'run_end') as ended_at,
        max(run_end_status) filter (where event_type = 'run_end') as run_end_status,
        count(*) as markers_reached,
        max(rank_marker_index) as last_rank_marker_index,
        max(event_at) as last_marker_at,
        count(*) filter (where event_type in ('checkpoint', 'epoch_end')) as synchronizing_markers_reached,
        coalesce(sum(seconds_before_last) filter (where event_type in ('checkpoint', 'epoch_end')), 0)
            as arrival_wait_seconds,
        count(*) filter (
            where event_type in ('checkpoint', 'epoch_end') and last_rank = rank and ranks_reached > 1
            and last_arrival_at > first_arrival_at
        ) as times_last
    from rank_markers
    group by run_id, rank
),

last_labels as (
    select
        rank_markers.run_id,
        rank_markers.rank,
        rank_markers.marker_label as last_marker_label
    from rank_markers
    inner join rank_progress
        on
        rank_markers.run_id = rank_progress.run_id
        and rank_markers.rank = rank_progress.rank
        and rank_markers.rank_marker_index = rank_progress.last_rank_marker_index
),

run_progress as (
    select
        run_id,
        max(last_marker_at) as run_last_marker_at
    from rank_progress
    group by run_id
),

stopped as (
    -- another rank went on past the rank's last marker, and that was no run_end of a completed rank
    -- (a rank that failed or wrote no run_end stopped early; one that completed had less to do)
    select
        rank_progress.run_id,
        rank_progress.rank,
        run_progress.run_last_marker_at > rank_progress.last_marker_at
        and coalesce(rank_progress.run_end_status, 'none') != 'completed' as stopped_early
    from rank_progress
    inner join run_progress on rank_progress.run_id = run_progress.run_id
),

latest_profile_indexes as (
    select
        run_id,
        rank,
        max(profile_index) as profile_index
    from rank_profiles
    group by run_id, rank
),

latest_profiles as (
    select
        rank_profiles.run_id,
        rank_profiles.rank,
        rank_profiles.busy_seconds
    from rank_profiles
    inner join latest_profile_indexes
        on
        rank_profiles.run_id = latest_profile_indexes.run_id
        and rank_profiles.rank = latest_profile_indexes.rank
        and rank_profiles.profile_index = latest_profile_indexes.profile_index
),

busiest_runs as (
    -- the busiest of the ranks that did not stop early, when at least two have a profile
    select
        latest_profiles.run_id,
        max(latest_profiles.busy_seconds) as most_busy_seconds
    from latest_profiles
    inner join stopped
        on latest_profiles.run_id = stopped.run_id and latest_profiles.rank = stopped.rank
    where not stopped.stopped_early
    group by latest_profiles.run_id
    having count(*) > 1
),

snapshot_maxima as (
    select
        run_id,
        profile_index,
        max(busy_seconds_since_previous) as most_busy_seconds
    from rank_profiles
    group by run_id, profile_index
    having count(*) > 1
),

times_busiest as (
    select
        rank_profiles.run_id,
        rank_profiles.rank,
        count(*) as times_busiest
    from rank_profiles
    inner join snapshot_maxima
        on
        rank_profiles.run_id = snapshot_maxima.run_id
        and rank_profiles.profile_index = snapshot_maxima.profile_index
        and rank_profiles.busy_seconds_since_previous = snapshot_maxima.most_busy_seconds
    group by rank_profiles.run_id, rank_profiles.rank
),

measured as (
    select
        rank_progress.*,
        stopped.stopped_early,
        latest_profiles.busy_seconds,
        case
            when not stopped.stopped_early
                then busiest_runs.most_busy_seconds - latest_profiles.busy_seconds
        end as busy_gap_seconds,
        coalesce(times_busiest.times_busiest, 0) as times_busiest
    from rank_progress
    inner join stopped on rank_progress.run_id = stopped.run_id and rank_progress.rank = stopped.rank
    left join latest_profiles
        on rank_progress.run_id = latest_profiles.run_id and rank_progress.rank = latest_profiles.rank
    left join busiest_runs on rank_progress.run_id = busiest_runs.run_id
    left join times_busiest
        on rank_progress.run_id = times_busiest.run_id and rank_progress.rank = times_busiest.rank
),

final as (
    select
        measured.run_id,
        runs.collection,
        runs.task,
        measured.rank,
        declared_sizes.world_size,
        measured.started_at,
        measured.ended_at,
        measured.run_end_status,
        cast(measured.markers_reached as {{ dbt.type_bigint() }}) as markers_reached,
        last_labels.last_marker_label,
        measured.last_marker_at,
        measured.stopped_early,
        cast(measured.synchronizing_markers_reached as {{ dbt.type_bigint() }}) as synchronizing_markers_reached,
        measured.arrival_wait_seconds,
        cast(measured.times_last as {{ dbt.type_bigint() }}) as times_last,
        measured.busy_seconds,
        measured.busy_gap_seconds,
        cast(measured.times_busiest as {{ dbt.type_bigint() }}) as times_busiest,
        {{ runlens.lost_to_slowest('measured.arrival_wait_seconds', 'measured.busy_gap_seconds') }}
            as lost_waiting_seconds,
        {{ runlens.lost_basis('measured.arrival_wait_seconds', 'measured.busy_gap_seconds') }} as lost_basis
    from measured
    left join runs on measured.run_id = runs.run_id
    left join declared_sizes on measured.run_id = declared_sizes.run_id
    left join last_labels on measured.run_id = last_labels.run_id and measured.rank = last_labels.rank
)

select * from final
