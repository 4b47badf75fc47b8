-- What each part of a task's wall time was spent on, per collection (def_interval_section_rollups).
-- Grain: one row per collection, task, wall_time_part and section.
{{ runlens.interval_section_rollup(['collection', 'task']) }}
