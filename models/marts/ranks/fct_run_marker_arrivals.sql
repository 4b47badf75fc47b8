-- When each rank of a run with several ranks reached each marker: the first and the last to
-- arrive and the spread between them (def_ranks). Grain: one row per run with ranks, marker label
-- and occurrence.
with

rank_markers as (
    select * from {{ ref('int_run_rank_markers') }}
),

run_markers as (
    select * from {{ ref('int_run_markers') }}
),

runs as (
    select * from {{ ref('int_run_attributes') }}
),

run_ranks as (
    select
        run_id,
        count(distinct rank) as ranks_seen
    from rank_markers
    group by run_id
),

markers as (
    select
        run_id,
        marker_label,
        label_occurrence,
        max(event_type) as event_type,
        max(step) as step,
        max(ranks_reached) as ranks_reached,
        min(first_arrival_at) as first_arrival_at,
        max(last_arrival_at) as last_arrival_at,
        max(case when arrival_order = 1 then rank end) as first_rank,
        max(case when arrival_order = 1 then event_id end) as first_event_id,
        max(last_rank) as last_rank,
        max(last_event_id) as last_event_id
    from rank_markers
    group by run_id, marker_label, label_occurrence
),

final as (
    select
        markers.run_id,
        runs.collection,
        runs.task,
        run_markers.marker_index,
        markers.marker_label,
        markers.label_occurrence,
        markers.event_type,
        markers.step,
        markers.event_type in ('checkpoint', 'epoch_end') as is_synchronizing,
        markers.ranks_reached,
        run_ranks.ranks_seen - markers.ranks_reached as ranks_missing,
        markers.first_arrival_at,
        markers.last_arrival_at,
        {{ runlens.seconds_between('markers.first_arrival_at', 'markers.last_arrival_at') }} as arrival_spread_seconds,
        markers.first_rank,
        markers.last_rank
    from markers
    inner join run_ranks on markers.run_id = run_ranks.run_id
    left join runs on markers.run_id = runs.run_id
    left join run_markers
        on
        markers.run_id = run_markers.run_id
        and run_markers.event_id
        = case when markers.event_type = 'run_start' then markers.first_event_id else markers.last_event_id end
)

select * from final
