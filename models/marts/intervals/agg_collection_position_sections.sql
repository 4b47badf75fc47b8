-- What each interval position of a collection was spent on (def_interval_section_rollups): per
-- position (def_interval_positions: the same stretch of training in every run) and profiler
-- section, the section's seconds over the analyzed runs with interval sections, its share of the
-- position's seconds and its mean per run.
-- Grain: one row per collection, position_index, position_label and section.
{{ runlens.interval_section_rollup(['collection'], by=['position_index', 'position_label']) }}
