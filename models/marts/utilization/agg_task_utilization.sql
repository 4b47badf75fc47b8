-- How busy each task of a collection kept its GPUs (def_utilization_rollups): over its runs with
-- GPU samples. Grain: one row per collection and task with GPU samples.
{{ runlens.utilization_rollup(['collection', 'task']) }}
