-- depends_on: {{ ref('int_run_versions') }}
-- Intervals between consecutive markers of a run (definitions: def_intervals, def_pre_epoch,
-- def_downtime). Grain: one row per run and interval_index.
with

markers as (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

final_epoch_ends as (
    select
        run_id,
        max(marker_index) as final_epoch_end_index
    from markers
    where event_type = 'epoch_end'
    group by run_id
),

paired as (
    select
        run_id,
        cast(marker_index - 1 as {{ dbt.type_bigint() }}) as interval_index,
        lag(marker_label) over run_markers as from_marker,
        marker_label as to_marker,
        lag(event_at) over run_markers as started_at,
        event_at as ended_at,
        event_type = 'run_start' as is_downtime,
        marker_index as to_marker_index
    from markers
    window run_markers as (partition by run_id order by marker_index)
),

final as (
    select
        paired.run_id,
        paired.interval_index,
        paired.from_marker || ' -> ' || paired.to_marker as label,
        paired.from_marker,
        paired.to_marker,
        paired.started_at,
        paired.ended_at,
        {{ runlens.seconds_between('paired.started_at', 'paired.ended_at') }} as seconds,
        coalesce(paired.to_marker_index <= final_epoch_ends.final_epoch_end_index, false) as is_pre_epoch,
        paired.is_downtime,
        {{ runlens.build_started_at() }} as computed_at
    from paired
    left join final_epoch_ends on paired.run_id = final_epoch_ends.run_id
    where paired.interval_index >= 1
)

select * from final
