-- The profiler traces below the raw folder (the source runlens_raw.trace_files), renamed and typed,
-- with the folder each lies in. Grain: one row per trace file.
with

listed as (
    select * from {{ source('runlens_raw', 'trace_files') }}
),

final as (
    select
        file_path,
        file_fingerprint,
        regexp_replace(file_path, '/?[^/]*$', '') as folder,
        regexp_replace(file_path, '^.*/', '') as file_name,
        size_bytes,
        is_gzip,
        schema_version,
        schema_kind,
        base_time_ns,
        rank,
        rank_source,
        world_size,
        distributed_backend,
        device_count,
        devices,
        event_count,
        started_at,
        ended_at,
        read_error,
        loaded_at
    from listed
)

select * from final
