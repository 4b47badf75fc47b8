-- Every profiler trace below the raw folder: the run and rank it belongs to (def_trace_runs), what
-- it holds and, for one that could not be read whole, why. Grain: one row per trace file.
with

files as (
    select * from {{ ref('stg_trace_files') }}
),

runs as (
    select * from {{ ref('int_trace_runs') }}
),

steps as (
    select
        file_path,
        count(case when not is_whole_trace then 1 end) as profiled_steps
    from {{ ref('int_trace_steps') }}
    group by file_path
),

device_events as (
    select
        file_path,
        count(*) as gpu_events
    from {{ ref('stg_trace_events') }}
    where is_gpu_event
    group by file_path
),

final as (
    select
        files.file_path,
        runs.run_id,
        runs.collection,
        runs.task,
        files.rank,
        files.rank_source,
        files.world_size,
        files.distributed_backend,
        coalesce(runs.is_own_run, false) as is_own_run,
        runs.run_id is not null as is_analyzed,
        files.schema_kind,
        files.schema_version,
        files.device_count,
        files.devices,
        files.event_count,
        coalesce(device_events.gpu_events, 0) as gpu_event_count,
        coalesce(steps.profiled_steps, 0) as profiled_steps,
        files.started_at,
        files.ended_at,
        files.size_bytes,
        files.read_error
    from files
    left join runs
        on files.file_path = runs.file_path
    left join steps
        on files.file_path = steps.file_path
    left join device_events
        on files.file_path = device_events.file_path
)

select * from final
