-- Every collection: those named in seeds/collections.csv and those found in the logs.
-- Grain: one row per collection.
with

seeded as (
    select * from {{ ref('collections') }}
),

runs as (
    select * from {{ ref('int_run_attributes') }}
    where collection is not null
),

found as (
    select
        collection,
        count(*) as runs
    from runs
    group by collection
),

all_collections as (
    select collection from seeded
    union
    select collection from found
),

final as (
    select
        all_collections.collection,
        coalesce(nullif(trim(seeded.title), ''), all_collections.collection) as title,
        nullif(trim(seeded.baseline_collection), '') as baseline_collection,
        nullif(trim(seeded.design_url), '') as design_url,
        nullif(trim(seeded.results_url), '') as results_url,
        seeded.collection is not null as is_in_seed,
        coalesce(found.runs, 0) as runs
    from all_collections
    left join seeded on all_collections.collection = seeded.collection
    left join found on all_collections.collection = found.collection
)

select * from final
