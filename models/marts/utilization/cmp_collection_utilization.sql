-- Each collection's GPU utilization against its baseline's (def_utilization_comparison), part of
-- the sessions by part (def_goodput_part_utilization) and over all of them (`all`): each side's
-- mean GPU utilization and idle GPU-hours per run with samples, and the change in points where
-- both sides measured the part.
-- Grain: one row per collection that names a baseline, and part either side measured GPUs in.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

parts as (
    select
        collection,
        part,
        runs,
        measured_gpu_hours,
        mean_gpu_utilization_pct,
        idle_gpu_hours
    from {{ ref('agg_collection_goodput_part_utilization') }}
),

overall as (
    select
        collection,
        'all' as part,
        runs,
        measured_gpu_hours,
        mean_gpu_utilization_pct,
        idle_gpu_hours
    from {{ ref('agg_collection_utilization') }}
),

sides as (
    select * from parts
    union all
    select * from overall
),

collection_parts as (
    -- every part either side measured GPUs in
    select
        collections.collection,
        collections.baseline_collection,
        sides.part
    from collections
    inner join sides on collections.collection = sides.collection
    union
    select
        collections.collection,
        collections.baseline_collection,
        sides.part
    from collections
    inner join sides on collections.baseline_collection = sides.collection
),

final as (
    select
        collection_parts.collection,
        collection_parts.baseline_collection,
        collection_parts.part,
        own.mean_gpu_utilization_pct,
        baseline.mean_gpu_utilization_pct as baseline_mean_gpu_utilization_pct,
        own.mean_gpu_utilization_pct - baseline.mean_gpu_utilization_pct as utilization_change_points,
        own.idle_gpu_hours / own.runs as idle_gpu_hours_per_run,
        baseline.idle_gpu_hours / baseline.runs as baseline_idle_gpu_hours_per_run
    from collection_parts
    left join sides as own
        on collection_parts.collection = own.collection and collection_parts.part = own.part
    left join sides as baseline
        on collection_parts.baseline_collection = baseline.collection and collection_parts.part = baseline.part
)

select * from final
