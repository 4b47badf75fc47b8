-- How busy each collection kept its GPUs (def_utilization_rollups): over its runs with GPU samples.
-- Grain: one row per collection with GPU samples.
{{ runlens.utilization_rollup(['collection']) }}
