-- Every collection: those the raw folder's collections file names (stg_collections) and those
-- found in the logs or in profiler traces that are runs of their own (def_trace_runs).
-- Grain: one row per collection.
with

seeded as (
    select * from {{ ref('stg_collections') }}
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

traces as (
    select * from {{ ref('int_trace_runs') }}
    where is_own_run and collection is not null
),

found_in_traces as (
    select
        collection,
        count(distinct run_id) as trace_runs
    from traces
    group by collection
),

all_collections as (
    select collection from seeded
    union
    select collection from found
    union
    select collection from found_in_traces
),

final as (
    select
        all_collections.collection,
        coalesce(seeded.title, all_collections.collection) as title,
        seeded.baseline_collection,
        seeded.design_url,
        seeded.results_url,
        seeded.collection is not null as is_in_collections_file,
        coalesce(found.runs, 0) as runs,
        coalesce(found_in_traces.trace_runs, 0) as trace_runs
    from all_collections
    left join seeded on all_collections.collection = seeded.collection
    left join found on all_collections.collection = found.collection
    left join found_in_traces on all_collections.collection = found_in_traces.collection
)

select * from final
