-- depends_on: {{ ref('int_run_versions') }}
-- Intervals between consecutive markers of a run (definitions: def_intervals, def_pre_epoch,
-- def_downtime), each with the event types and steps of its two markers, so that no later model
-- joins the markers again (fct_run_throughput), and with the run's collection and task, so that no
-- reader joins the runs for them; and with its position (def_interval_positions), which lines up
-- across runs whether or not a run restarted: a restart's downtime has none, and the interval that
-- opens at a restart's run_start takes the place of the one the restart cut; and, for an interval
-- that ends at a restart, its downtime (def_downtime: from the session's last event, int_run_sessions).
-- Grain: one row per run and interval_index.
with

markers as {{ runlens.streamed_cte() }} (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

attributes as (
    select * from {{ ref('int_run_attributes') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

sessions as (
    select * from {{ ref('int_run_sessions') }}
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

restart_starts as (
    -- a restart: a run_start after the run's first marker (def_downtime)
    select
        run_id,
        marker_index
    from markers
    where event_type = 'run_start' and marker_index > 1
),

restart_anchors as (
    -- the marker a restart's first interval lines up from: the last one before the restart that
    -- is not itself a restart's run_start
    select
        restart_starts.run_id,
        restart_starts.marker_index,
        max(earlier.marker_index) as anchor_index
    from restart_starts
    inner join markers as earlier
        on restart_starts.run_id = earlier.run_id
        and restart_starts.marker_index > earlier.marker_index
        and not (earlier.event_type = 'run_start' and earlier.marker_index > 1)
    group by restart_starts.run_id, restart_starts.marker_index
),

anchor_labels as (
    select
        restart_anchors.run_id,
        restart_anchors.marker_index,
        markers.marker_label as anchor_label
    from restart_anchors
    inner join markers
        on restart_anchors.run_id = markers.run_id
        and restart_anchors.anchor_index = markers.marker_index
),

restart_numbers as (
    -- each restart's number within its run: 1 for the first
    select
        later.run_id,
        later.marker_index,
        count(*) as restart_number
    from restart_starts as later
    inner join restart_starts as earlier
        on later.run_id = earlier.run_id and later.marker_index >= earlier.marker_index
    group by later.run_id, later.marker_index
),

restart_ranges as (
    -- the markers from each restart's run_start to the next restart's (excluded): the intervals
    -- that open there have had restart_number restarts, each a downtime interval before them
    select
        restart_numbers.run_id,
        restart_numbers.marker_index as from_index,
        next_restarts.marker_index as until_index,
        restart_numbers.restart_number
    from restart_numbers
    left join restart_numbers as next_restarts
        on restart_numbers.run_id = next_restarts.run_id
        and restart_numbers.restart_number + 1 = next_restarts.restart_number
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
        closing.step as to_step,
        coalesce(anchor_labels.anchor_label, opening.marker_label) as position_from_marker
    from markers as closing
    inner join markers as opening
        on closing.run_id = opening.run_id
        and closing.marker_index = opening.marker_index + 1
    left join anchor_labels
        on opening.run_id = anchor_labels.run_id
        and opening.marker_index = anchor_labels.marker_index
),

counted as (
    -- the restarts before each interval: those at or before its opening marker
    select
        paired.*,
        coalesce(restart_ranges.restart_number, 0) as restarts_before
    from paired
    left join restart_ranges
        on paired.run_id = restart_ranges.run_id
        and paired.interval_index >= restart_ranges.from_index
        and (restart_ranges.until_index is null or paired.interval_index < restart_ranges.until_index)
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
        -- the part of an interval that ends at a restart after the session's last event: no process
        -- ran (def_downtime); the rest of it is the crashed session's work after its last marker
        case
            when paired.is_downtime and sessions.last_event_at > paired.started_at
                then {{ runlens.seconds_between('sessions.last_event_at', 'paired.ended_at') }}
            when paired.is_downtime
                then {{ runlens.seconds_between('paired.started_at', 'paired.ended_at') }}
            else cast(0 as {{ runlens.type_double() }})
        end as down_seconds,
        paired.from_event_type,
        paired.from_step,
        paired.to_event_type,
        paired.to_step,
        -- a restart's downtime holds no position (def_interval_positions)
        case when not paired.is_downtime then paired.interval_index - paired.restarts_before end as position_index,
        case when not paired.is_downtime then paired.position_from_marker || ' -> ' || paired.to_marker end
            as position_label,
        {{ runlens.build_started_at() }} as computed_at
    from counted as paired
    left join final_epoch_ends on paired.run_id = final_epoch_ends.run_id
    left join attributes on paired.run_id = attributes.run_id
    left join sessions
        on paired.run_id = sessions.run_id
        and paired.is_downtime
        and paired.ended_at = sessions.next_started_at
)

select * from final
