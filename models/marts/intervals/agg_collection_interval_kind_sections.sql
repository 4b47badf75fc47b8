-- What each kind of interval of a collection was spent on (def_interval_section_rollups): per
-- interval kind (def_interval_kinds: checkpoint -> checkpoint, epoch_end -> checkpoint, ...) and
-- profiler section, the section's seconds over the analyzed runs with interval sections, its share
-- of the kind's seconds and its mean per run. Grain: one row per collection, interval_kind and section.
{{ runlens.interval_section_rollup(['collection'], by=['interval_kind']) }}
