-- What the build that made these marts ran with: the raw folder it read, the as-of instant its
-- "now"-dependent figures are computed as of (macros/build_context.sql), and the thresholds (dbt
-- vars) the marts judged regressions, stalled runs, GPU utilization and input-bound steps by, so
-- that a page states the ones used.
-- Grain: one row.
{%- set double = var('runlens_types')[target.type].double %}
with

final as (
    select
        {{ runlens.build_raw_dir() }} as raw_dir,
        {{ runlens.build_started_at() }} as build_started_at,
        {{ runlens.build_as_of() }} as as_of_at,
        {{ runlens.build_as_of_source() }} as as_of_source,
        cast({{ var('regression_threshold') }} as {{ double }}) as regression_threshold,
        cast({{ var('regression_min_runs') }} as {{ dbt.type_bigint() }}) as regression_min_runs,
        cast({{ var('stall_multiple') }} as {{ double }}) as stall_multiple,
        cast({{ var('stall_min_seconds') }} as {{ double }}) as stall_min_seconds,
        cast({{ var('utilization_sample_hold_seconds') }} as {{ double }}) as utilization_sample_hold_seconds,
        cast({{ var('utilization_min_samples') }} as {{ dbt.type_bigint() }}) as utilization_min_samples,
        cast({{ var('input_bound_share') }} as {{ double }}) as input_bound_share
)

select * from final
