-- Each collection's goodput breakdown against its baseline's (def_goodput_comparison): every
-- bucket's share of wall time on both sides, the change in points, and its mean seconds per run.
-- Grain: one row per collection that names a baseline with runs, and bucket.
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

goodput as (
    select * from {{ ref('agg_collection_goodput') }}
),

final as (
    select
        collections.collection,
        collections.baseline_collection,
        own.bucket,
        own.bucket_order,
        own.share_of_wall,
        baseline.share_of_wall as baseline_share_of_wall,
        own.share_of_wall - baseline.share_of_wall as share_change,
        own.seconds / own.runs as seconds_per_run,
        baseline.seconds / baseline.runs as baseline_seconds_per_run
    from collections
    inner join goodput as own on collections.collection = own.collection
    inner join goodput as baseline
        on collections.baseline_collection = baseline.collection and own.bucket = baseline.bucket
)

select * from final
