-- depends_on: {{ ref('int_run_versions') }}
-- Intervals between consecutive markers of a run (definitions: def_intervals, def_pre_epoch,
-- def_downtime), each with the event types and steps of its two markers, so that no later model
-- joins the markers again (fct_run_throughput), and with the run's collection and task, so that no
-- reader joins the runs for them. Grain: one row per run and interval_index.
with

markers as (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

attributes as (
    select * from {{ ref('int_run_attributes') }}
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
    -- each marker with the one before it (marker_index numbers them without gaps): a join on
    -- the index, not a sort
    select
        closing.run_id,
        opening.marker_index as interval_index,
        opening.marker_label as from_marker,
        closing.marker_label as to_marker,
        opening.event_at as started_at,
        closing.event_at as ended_at,
        closing.event_type = 'run_start' as is_downtime,
        closing.marker_index as to_marker_index,
        opening.event_type as from_event_type,
        opening.step as from_step,
        closing.event_type as to_event_type,
        closing.step as to_step
    from markers as closing
    inner join markers as opening
        on closing.run_id = opening.run_id
        and closing.marker_index = opening.marker_index + 1
),

final as (
    select
        paired.run_id,
        attributes.collection,
        attributes.task,
        paired.interval_index,
        paired.from_marker || ' -> ' || paired.to_marker as label,
        paired.from_marker,
        paired.to_marker,
        paired.started_at,
        paired.ended_at,
        {{ runlens.seconds_between('paired.started_at', 'paired.ended_at') }} as seconds,
        coalesce(paired.to_marker_index <= final_epoch_ends.final_epoch_end_index, false) as is_pre_epoch,
        paired.is_downtime,
        paired.from_event_type,
        paired.from_step,
        paired.to_event_type,
        paired.to_step,
        {{ runlens.build_started_at() }} as computed_at
    from paired
    left join final_epoch_ends on paired.run_id = final_epoch_ends.run_id
    left join attributes on paired.run_id = attributes.run_id
)

select * from final
