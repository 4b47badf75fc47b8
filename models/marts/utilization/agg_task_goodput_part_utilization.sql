-- How busy each part of the runs' sessions (def_goodput_part_utilization: start-up, training, the
-- final tail, redone and lost training) kept the GPUs of a task of a collection, and its share of
-- the task's idle GPU-hours (def_utilization_rollups). Grain: one row per collection, task and part.
{{ runlens.utilization_rollup(['collection', 'task'], by=['part'], stretches='fct_run_goodput_part_utilization') }}
