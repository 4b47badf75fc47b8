-- The goodput breakdown per collection (def_goodput_rollups): each bucket's seconds over the
-- collection's runs, its share of their wall time, and its GPU-hours when every run names its GPUs.
-- Grain: one row per collection and bucket.
{{ runlens.goodput_rollup(['collection']) }}
