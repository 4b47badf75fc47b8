-- Which marker times are stand-ins, and why: imported logs flag every marker whose time is
-- approximate (runlens/importers), and every train_start they inferred (where a session's
-- training began, which goodput's start-up ends at). Grain: one row per collection, source format
-- and reason.
with

approximate_markers as (
    select * from {{ ref('int_run_markers') }}
    where is_approximate
),

approximate_train_starts as (
    select * from {{ ref('int_event_occurrences') }}
    where event_type = 'train_start' and occurrence = 1 and is_approximate
),

markers as (
    select
        run_id,
        approximation
    from approximate_markers
    union all
    select
        run_id,
        approximation
    from approximate_train_starts
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
