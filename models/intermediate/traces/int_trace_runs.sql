-- Which run and rank each readable trace belongs to (def_trace_runs in
-- models/marts/steps/_steps__docs.md): the run of a log in the trace's folder or a folder above
-- it whose time window holds the trace's start; else a run of its own, a folder of traces of
-- distinct ranks being one run. Grain: one row per trace file read whole with at least one event.
with

traces as (
    select * from {{ ref('stg_trace_files') }}
    where read_error is null and event_count > 0
),

log_folders as (
    select distinct
        run_id,
        regexp_replace(file_path, '/?[^/]*$', '') as log_folder
    from {{ ref('int_event_occurrences') }}
),

runs as (
    select * from {{ ref('int_run_attributes') }}
),

candidates as (
    select
        traces.file_path,
        runs.run_id,
        runs.collection,
        runs.task,
        row_number() over (
            partition by traces.file_path
            order by length(log_folders.log_folder) desc, runs.first_event_at desc, runs.run_id asc
        ) as preference
    from traces
    inner join log_folders
        on log_folders.log_folder = ''
        or traces.folder = log_folders.log_folder
        or left(traces.folder, length(log_folders.log_folder) + 1) = log_folders.log_folder || '/'
    inner join runs
        on log_folders.run_id = runs.run_id
        and traces.started_at >= runs.first_event_at
        and traces.started_at <= runs.last_event_at
),

of_logged_runs as (
    select * from candidates
    where preference = 1
),

on_their_own as (
    select traces.*
    from traces
    left join of_logged_runs
        on traces.file_path = of_logged_runs.file_path
    where of_logged_runs.file_path is null
),

-- a folder whose traces on their own are all of distinct ranks, two or more, is one job
folders as (
    select
        folder,
        count(*) = count(distinct rank) and count(*) >= 2 as is_one_job
    from on_their_own
    group by folder
),

own_runs as (
    select
        on_their_own.file_path,
        case
            when folders.is_one_job then 'trace:' || coalesce(nullif(on_their_own.folder, ''), '.')
            else 'trace:' || on_their_own.file_path
        end as run_id,
        case
            when folders.is_one_job then coalesce(nullif(regexp_replace(on_their_own.folder, '/?[^/]*$', ''), ''), '.')
            else coalesce(nullif(on_their_own.folder, ''), '.')
        end as collection,
        case
            when folders.is_one_job then coalesce(nullif(regexp_replace(on_their_own.folder, '^.*/', ''), ''), '.')
            else regexp_replace(on_their_own.file_name, '([.]pt[.]trace)?[.]json([.]gz)?$', '')
        end as task
    from on_their_own
    inner join folders
        on on_their_own.folder = folders.folder
),

assigned as (
    select
        file_path,
        run_id,
        collection,
        task,
        false as is_own_run
    from of_logged_runs
    union all
    select
        file_path,
        run_id,
        collection,
        task,
        true as is_own_run
    from own_runs
),

final as (
    select
        assigned.file_path,
        assigned.run_id,
        traces.rank,
        assigned.collection,
        assigned.task,
        assigned.is_own_run,
        traces.started_at,
        traces.base_time_ns
    from assigned
    inner join traces
        on assigned.file_path = traces.file_path
)

select * from final
