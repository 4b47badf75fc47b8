-- Which marker times are stand-ins, and why: imported logs flag every marker whose time is
-- approximate (runlens/importers). Grain: one row per collection, source format and reason.
with

markers as (
    select * from {{ ref('int_run_markers') }}
    where is_approximate
),

runs as (
    select * from {{ ref('fct_runs') }}
    where collection is not null
),

final as (
    select
        runs.collection,
        runs.source_format,
        coalesce(markers.approximation, 'approximate (no reason given)') as approximation,
        count(*) as markers,
        count(distinct markers.run_id) as runs
    from markers
    inner join runs on markers.run_id = runs.run_id
    group by runs.collection, runs.source_format, coalesce(markers.approximation, 'approximate (no reason given)')
)

select * from final
