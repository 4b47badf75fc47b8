-- How busy each kind of interval (def_interval_kinds) kept the GPUs of a task of a collection, and
-- its share of the task's idle GPU-hours (def_utilization_rollups).
-- Grain: one row per collection, task and interval_kind.
{{ runlens.utilization_rollup(['collection', 'task'], by=['interval_kind']) }}
