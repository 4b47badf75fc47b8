-- How busy each part of the runs' wall time (def_wall_time_parts: the opening block, the later
-- windows, the final tail, other) kept a collection's GPUs, and its share of the collection's idle
-- GPU-hours (def_utilization_rollups). Grain: one row per collection and wall_time_part.
{{ runlens.utilization_rollup(['collection'], by=['wall_time_part']) }}
