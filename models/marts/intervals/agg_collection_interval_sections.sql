-- What each part of a collection's wall time was spent on (def_interval_section_rollups): per part
-- (opening block, later windows, final tail, other) and profiler section, the section's seconds over
-- the analyzed runs with interval sections, its share of the part and its mean per run.
-- Grain: one row per collection, wall_time_part and section.
{{ runlens.interval_section_rollup(['collection']) }}
