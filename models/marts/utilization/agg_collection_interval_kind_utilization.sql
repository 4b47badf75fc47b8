-- How busy each kind of interval (def_interval_kinds) kept a collection's GPUs, and its share of the
-- collection's idle GPU-hours (def_utilization_rollups). Grain: one row per collection and interval_kind.
{{ runlens.utilization_rollup(['collection'], by=['interval_kind']) }}
