-- The goodput breakdown per task of a collection (def_goodput_rollups): each bucket's seconds over
-- the task's runs, its share of their wall time, and its GPU-hours when every run names its GPUs.
-- Grain: one row per collection, task and bucket.
{{ runlens.goodput_rollup(['collection', 'task']) }}
