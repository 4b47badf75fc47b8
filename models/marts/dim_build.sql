-- What the build that made these marts ran with: the raw folder it read and the as-of instant
-- its "now"-dependent figures are computed as of (macros/build_context.sql).
-- Grain: one row.
with

final as (
    select
        {{ runlens.build_raw_dir() }} as raw_dir,
        {{ runlens.build_started_at() }} as build_started_at,
        {{ runlens.build_as_of() }} as as_of_at,
        {{ runlens.build_as_of_source() }} as as_of_source
)

select * from final
