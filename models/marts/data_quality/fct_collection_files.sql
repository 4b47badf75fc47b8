-- Which log files hold each collection's lines: a file holds a collection's line when one of its
-- lines (accepted, a duplicate, an other event or a rejected line that names its run) names a
-- run of the collection (def_collection_files). Grain: one row per collection and file.
with

runs as (
    select
        run_id,
        collection
    from {{ ref('fct_runs') }}
    where collection is not null
),

lines_with_runs as (
    select
        file_path,
        run_id
    from {{ ref('int_event_occurrences') }}
    union all
    select
        file_path,
        run_id
    from {{ ref('fct_other_events') }}
    where run_id is not null
    union all
    select
        file_path,
        run_id
    from {{ ref('fct_rejected_lines') }}
    where run_id is not null
),

final as (
    select
        runs.collection,
        lines_with_runs.file_path,
        count(distinct lines_with_runs.run_id) as runs,
        count(*) as lines_of_collection
    from lines_with_runs
    inner join runs on lines_with_runs.run_id = runs.run_id
    group by runs.collection, lines_with_runs.file_path
)

select * from final
