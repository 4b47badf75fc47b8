-- Per collection, its runs with several ranks: how much of their wall time went to waiting for
-- the slowest rank, and how many had a straggling rank or ranks that stopped early (def_ranks).
-- Grain: one row per collection with at least one run with ranks.
with

distributed_runs as (
    select * from {{ ref('fct_distributed_runs') }}
    where collection is not null
),

final as (
    select
        collection,
        cast(count(*) as {{ dbt.type_bigint() }}) as distributed_runs,
        cast(count(*) filter (where straggling_rank is not null) as {{ dbt.type_bigint() }})
            as runs_with_straggling_rank,
        cast(count(*) filter (where stopped_ranks > 0) as {{ dbt.type_bigint() }}) as runs_with_stopped_ranks,
        sum(wall_seconds) filter (where wall_seconds is not null) as wall_seconds,
        sum(lost_to_slowest_seconds) filter (where wall_seconds is not null) as lost_to_slowest_seconds,
        sum(lost_to_slowest_seconds) filter (where wall_seconds is not null)
        / nullif(sum(wall_seconds) filter (where wall_seconds is not null), 0) as lost_share
    from distributed_runs
    group by collection
)

select * from final
