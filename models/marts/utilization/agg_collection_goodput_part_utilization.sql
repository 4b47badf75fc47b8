-- How busy each part of the runs' sessions (def_goodput_part_utilization: start-up, training, the
-- final tail, redone and lost training) kept a collection's GPUs, and its share of the idle
-- GPU-hours (def_utilization_rollups). Grain: one row per collection and part.
{{ runlens.utilization_rollup(['collection'], by=['part'], stretches='fct_run_goodput_part_utilization') }}
