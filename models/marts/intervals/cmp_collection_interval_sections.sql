-- What each part of a collection's wall time was spent on against its baseline
-- (def_interval_section_comparison): per part and section, the mean seconds per run on both sides
-- and their difference, with the part's own mean and difference, so that a page can say how much
-- of a part's change each section holds. Grain: one row per collection that names a baseline
-- with interval sections on both sides, wall_time_part and section (of either side).
with

collections as (
    select * from {{ ref('dim_collections') }}
    where baseline_collection is not null
),

sections as (
    select * from {{ ref('agg_collection_interval_sections') }}
),

side_runs as (
    select distinct
        collection,
        runs
    from sections
),

part_means as (
    select distinct
        collection,
        wall_time_part,
        part_seconds / runs as part_mean_seconds
    from sections
),

section_keys as (
    -- every part and section either side has
    select
        collections.collection,
        collections.baseline_collection,
        sections.wall_time_part,
        sections.section
    from collections
    inner join sections on collections.collection = sections.collection
    union
    select
        collections.collection,
        collections.baseline_collection,
        sections.wall_time_part,
        sections.section
    from collections
    inner join sections on collections.baseline_collection = sections.collection
),

final as (
    select
        section_keys.collection,
        section_keys.baseline_collection,
        section_keys.wall_time_part,
        section_keys.section,
        coalesce(own.bucket, baseline.bucket) as bucket,
        own_runs.runs,
        baseline_runs.runs as baseline_runs,
        coalesce(own.mean_seconds_per_run, 0) as mean_seconds_per_run,
        coalesce(baseline.mean_seconds_per_run, 0) as baseline_mean_seconds_per_run,
        coalesce(own.mean_seconds_per_run, 0) - coalesce(baseline.mean_seconds_per_run, 0) as change_seconds,
        coalesce(own_parts.part_mean_seconds, 0) as part_mean_seconds,
        coalesce(baseline_parts.part_mean_seconds, 0) as baseline_part_mean_seconds,
        coalesce(own_parts.part_mean_seconds, 0) - coalesce(baseline_parts.part_mean_seconds, 0)
            as part_change_seconds
    from section_keys
    inner join side_runs as own_runs on section_keys.collection = own_runs.collection
    inner join side_runs as baseline_runs on section_keys.baseline_collection = baseline_runs.collection
    left join sections as own
        on section_keys.collection = own.collection
        and section_keys.wall_time_part = own.wall_time_part
        and section_keys.section = own.section
    left join sections as baseline
        on section_keys.baseline_collection = baseline.collection
        and section_keys.wall_time_part = baseline.wall_time_part
        and section_keys.section = baseline.section
    left join part_means as own_parts
        on section_keys.collection = own_parts.collection and section_keys.wall_time_part = own_parts.wall_time_part
    left join part_means as baseline_parts
        on section_keys.baseline_collection = baseline_parts.collection
        and section_keys.wall_time_part = baseline_parts.wall_time_part
)

select * from final
