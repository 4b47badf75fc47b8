-- Per collection, its runs with several ranks: how much of their wall time went to waiting for
-- the slowest rank, and how many had a straggling rank or ranks that stopped early (def_ranks;
-- the rollup is macros/ranks.sql's, shared with agg_task_rank_waiting).
-- Grain: one row per collection with at least one run with ranks.
{{ runlens.rank_waiting_rollup(['collection']) }}
