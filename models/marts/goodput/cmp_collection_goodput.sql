-- Each collection's goodput breakdown against its baseline's (def_goodput_comparison): every
-- bucket's share of wall time on both sides, whether each side measured it, the change in points
-- (only where both did), and its mean seconds per run.
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
        -- a bucket no run of a side could measure did not move: it was not measured
        own.runs_unmeasured < own.runs as is_measured,
        baseline.runs_unmeasured < baseline.runs as is_baseline_measured,
        case
            when own.runs_unmeasured < own.runs and baseline.runs_unmeasured < baseline.runs
                then own.share_of_wall - baseline.share_of_wall
        end as share_change,
        own.seconds / own.runs as seconds_per_run,
        baseline.seconds / baseline.runs as baseline_seconds_per_run
    from collections
    inner join goodput as own on collections.collection = own.collection
    inner join goodput as baseline
        on collections.baseline_collection = baseline.collection and own.bucket = baseline.bucket
)

select * from final
