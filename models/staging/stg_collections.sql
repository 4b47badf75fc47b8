-- The collections the raw folder's metadata file names (the source runlens_raw.collections:
-- runlens_collections.csv, or the file RUNLENS_COLLECTIONS points at; input_contract.md, "Folder
-- metadata"), one row each, with empty cells as NULL. A folder without the file has none.
-- Grain: one row per collection.
with

named as (
    select
        collection,
        title,
        baseline_collection,
        design_url,
        results_url
    from {{ source('runlens_raw', 'collections') }}
),

final as (
    select
        collection,
        nullif(trim(title), '') as title,
        nullif(trim(baseline_collection), '') as baseline_collection,
        nullif(trim(design_url), '') as design_url,
        nullif(trim(results_url), '') as results_url
    from named
)

select * from final
