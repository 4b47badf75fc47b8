-- Each run whose lines come from more than one rank: how much of its wall time went to waiting
-- for its slowest rank, by arrival spread or by busy time (whichever shows more), its straggling
-- rank when one rank was the last or the busiest by the documented margin, and its incomplete
-- ranks (def_ranks). Grain: one row per run with ranks.
with

ranks as (
    select * from {{ ref('fct_run_ranks') }}
),

arrivals as (
    select * from {{ ref('fct_run_marker_arrivals') }}
),

rank_profiles as (
    select * from {{ ref('int_run_rank_profiles') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
),

arrival_totals as (
    select
        run_id,
        count(*) filter (where is_synchronizing) as synchronizing_markers,
        coalesce(sum(arrival_spread_seconds) filter (where is_synchronizing), 0) as arrival_lost_seconds,
        count(*) filter (where is_synchronizing and ranks_reached > 1 and arrival_spread_seconds > 0)
            as arrival_points
    from arrivals
    group by run_id
),

busy_totals as (
    -- busiest less least busy among the ranks that did not stop early, when two or more have a profile
    select
        run_id,
        max(busy_seconds) - min(busy_seconds) as busy_lost_seconds
    from ranks
    where not stopped_early and busy_seconds is not null
    group by run_id
    having count(*) > 1
),

busy_points as (
    select
        run_id,
        count(*) as busy_points
    from (
        select
            run_id,
            profile_index
        from rank_profiles
        group by run_id, profile_index
        having count(*) > 1
    ) as snapshots
    group by run_id
),

rank_totals as (
    select
        run_id,
        max(world_size) as declared_world_size,
        count(*) as ranks_seen,
        count(*) filter (where stopped_early) as stopped_ranks,
        min(rank) filter (where stopped_early) as first_stopped_rank
    from ranks
    group by run_id
),

totals as (
    select
        rank_totals.run_id,
        rank_totals.declared_world_size,
        rank_totals.ranks_seen,
        rank_totals.stopped_ranks,
        rank_totals.first_stopped_rank,
        arrival_totals.synchronizing_markers,
        arrival_totals.arrival_lost_seconds,
        arrival_totals.arrival_points,
        busy_totals.busy_lost_seconds,
        coalesce(busy_points.busy_points, 0) as busy_points,
        {{ runlens.lost_basis('arrival_totals.arrival_lost_seconds', 'busy_totals.busy_lost_seconds') }}
            as lost_basis,
        {{ runlens.lost_to_slowest('arrival_totals.arrival_lost_seconds', 'busy_totals.busy_lost_seconds') }}
            as lost_to_slowest_seconds
    from rank_totals
    inner join arrival_totals on rank_totals.run_id = arrival_totals.run_id
    left join busy_totals on rank_totals.run_id = busy_totals.run_id
    left join busy_points on rank_totals.run_id = busy_points.run_id
),

measured as (
    -- the points that tell the ranks apart, per the run's basis: markers or profiles
    select
        *,
        case when lost_basis = 'busy_time' then busy_points else arrival_points end as straggler_points
    from totals
),

rank_counts as (
    -- how often each rank was the last (arrival) or the busiest (busy time), per the run's basis
    select
        ranks.run_id,
        ranks.rank,
        case when measured.lost_basis = 'busy_time' then ranks.times_busiest else ranks.times_last end as times_slowest
    from ranks
    inner join measured on ranks.run_id = measured.run_id
),

slowness_orders as (
    select
        *,
        row_number() over (partition by run_id order by times_slowest desc, rank asc) as slowness_order
    from rank_counts
),

top_ranks as (
    select
        run_id,
        max(case when slowness_order = 1 then rank end) as slowest_rank,
        max(case when slowness_order = 1 then times_slowest end) as slowest_times,
        coalesce(max(case when slowness_order = 2 then times_slowest end), 0) as runner_up_times
    from slowness_orders
    group by run_id
),

final as (
    select
        measured.run_id,
        runs.collection,
        runs.task,
        runs.status,
        cast(coalesce(measured.declared_world_size, measured.ranks_seen) as {{ dbt.type_bigint() }}) as world_size,
        cast(measured.ranks_seen as {{ dbt.type_bigint() }}) as ranks_seen,
        runs.wall_seconds,
        cast(measured.synchronizing_markers as {{ dbt.type_bigint() }}) as synchronizing_markers,
        measured.arrival_lost_seconds,
        measured.busy_lost_seconds,
        measured.lost_basis,
        measured.lost_to_slowest_seconds,
        measured.lost_to_slowest_seconds / nullif(runs.wall_seconds, 0) as lost_share,
        case
            when
                top_ranks.slowest_times >= {{ var('straggling_rank_min_points') }}
                and top_ranks.slowest_times >= 0.5 * measured.straggler_points
                and top_ranks.slowest_times >= 2 * top_ranks.runner_up_times
                and measured.lost_to_slowest_seconds
                >= {{ var('straggling_rank_min_share') }} * nullif(runs.wall_seconds, 0)
                then top_ranks.slowest_rank
        end as straggling_rank,
        cast(top_ranks.slowest_times as {{ dbt.type_bigint() }}) as straggling_rank_times,
        cast(measured.straggler_points as {{ dbt.type_bigint() }}) as straggler_points,
        cast(measured.stopped_ranks as {{ dbt.type_bigint() }}) as stopped_ranks,
        measured.first_stopped_rank,
        cast(
            greatest(coalesce(measured.declared_world_size, measured.ranks_seen) - measured.ranks_seen, 0)
            as {{ dbt.type_bigint() }}
        ) as silent_ranks
    from measured
    inner join top_ranks on measured.run_id = top_ranks.run_id
    left join runs on measured.run_id = runs.run_id
)

select * from final
