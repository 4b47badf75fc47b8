-- Per collection, its runs with several ranks: how much of their wall time went to waiting for
-- the slowest rank, and how many had a straggling rank or ranks that stopped early (def_ranks;
-- the rollup is macros/ranks.sql's, shared with agg_task_rank_waiting).
-- Grain: one row per collection with at least one run with ranks.
with

distributed_runs as (
    select * from {{ ref('fct_distributed_runs') }}
    where collection is not null
),

final as (
    {{ runlens.rank_waiting_by(['collection']) }}
)

select * from final
