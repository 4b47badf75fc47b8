-- Runs that have accepted events but no run_start (fct_runs exclusion_reason `no_run_start`): no
-- collection names them, so no profile can, and the index lists them with the file they are in
-- and the fix (def_unstarted_runs). Grain: one row per such run.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where exclusion_reason = 'no_run_start'
),

events as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1
),

misspelt_starts as (
    -- a rejected line of the run whose event name looks like a misspelt run_start
    select
        run_id,
        min(event_name) as misspelt_as,
        min(reject_id) as misspelt_at
    from {{ ref('fct_rejected_lines') }}
    where reject_reason = 'unknown_event' and resembles_event_type = 'run_start' and run_id is not null
    group by run_id
),

run_files as (
    select
        events.run_id,
        min(events.file_path) as file_path,
        count(distinct events.file_path) as files,
        count(*) as events
    from events
    inner join runs on events.run_id = runs.run_id
    group by events.run_id
),

final as (
    select
        run_files.run_id,
        run_files.file_path,
        run_files.files,
        run_files.events,
        misspelt_starts.misspelt_as,
        misspelt_starts.misspelt_at
    from run_files
    left join misspelt_starts on run_files.run_id = misspelt_starts.run_id
)

select * from final
