-- Profiler sections per collection over its analyzed runs that have a profile
-- (def_profile_sections), each with the goodput bucket its seconds count in (def_goodput).
-- Grain: one row per collection and section.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and has_profile
),

profiles as (
    select * from {{ ref('int_run_profiles') }}
),

sections as (
    select * from {{ ref('int_run_profile_sections') }}
),

profiled_totals as (
    select
        runs.collection,
        count(*) as profiled_runs,
        sum(profiles.wall_seconds) as profiled_wall_seconds
    from runs
    inner join profiles on runs.run_id = profiles.run_id
    group by runs.collection
),

{{ runlens.goodput_section_bucket_ctes('sections') }},

section_totals as (
    select
        runs.collection,
        sections.section,
        sum(sections.seconds) as total_seconds
    from sections
    inner join runs on sections.run_id = runs.run_id
    group by runs.collection, sections.section
),

final as (
    select
        section_totals.collection,
        section_totals.section,
        section_bucket_of.bucket as goodput_bucket,
        section_totals.total_seconds,
        case
            when profiled_totals.profiled_wall_seconds > 0
                then section_totals.total_seconds / profiled_totals.profiled_wall_seconds
        end as share_of_wall,
        section_totals.total_seconds / profiled_totals.profiled_runs as mean_seconds_per_run,
        profiled_totals.profiled_runs
    from section_totals
    inner join profiled_totals on section_totals.collection = profiled_totals.collection
    left join section_bucket_of on section_totals.section = section_bucket_of.section
)

select * from final
