-- Profiler sections per collection over its analyzed runs that have a profile
-- (def_profile_sections), each with the goodput bucket its seconds count in (def_goodput), and
-- how many of those runs' profiles came from a framework's report without timestamps
-- (def_untimed_reports). Grain: one row per collection and section.
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

profile_events as (
    select * from {{ ref('int_event_occurrences') }}
    where event_type = 'profile'
),

untimed_profiles as (
    -- the importers mark a profile made from a report without timestamps (input_contract.md)
    select profiles.run_id
    from profiles
    inner join profile_events on profiles.event_id = profile_events.event_id
    where profile_events.approximation like 'profile from a report without timestamps%'
),

profiled_totals as (
    select
        runs.collection,
        count(*) as profiled_runs,
        count(untimed_profiles.run_id) as untimed_report_runs,
        sum(profiles.wall_seconds) as profiled_wall_seconds
    from runs
    inner join profiles on runs.run_id = profiles.run_id
    left join untimed_profiles on runs.run_id = untimed_profiles.run_id
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
        profiled_totals.profiled_runs,
        profiled_totals.untimed_report_runs
    from section_totals
    inner join profiled_totals on section_totals.collection = profiled_totals.collection
    left join section_bucket_of on section_totals.section = section_bucket_of.section
)

select * from final
