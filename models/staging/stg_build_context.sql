-- What the reading behind this build ran with (the source runlens_raw.build_context): the raw
-- folder, when the reading began (the time every row this build writes carries:
-- macros/incremental_state.sql, build_started_at) and the as-of time RUNLENS_AS_OF or the
-- folder's runlens_as_of.txt pins, if any (macros/build_context.sql). A reading that could not be
-- done (a raw folder or metadata file that cannot be used) stops the build here, with the line
-- that says what to do. Grain: one row.
with

build_context as (
    select
        raw_dir,
        build_started_at,
        pinned_as_of
    from {{ source('runlens_raw', 'build_context') }}
    where {{ runlens.stop_on_reading_error('reading_error') }}
),

final as (
    select
        raw_dir,
        build_started_at,
        pinned_as_of
    from build_context
)

select * from final
