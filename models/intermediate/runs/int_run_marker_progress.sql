-- depends_on: {{ ref('int_run_versions') }}
-- How far each run had got at each of its markers, for the live-run estimates (def_live_eta):
-- the active seconds from its first run_start to the marker (downtime left out) and the seconds
-- of the interval that follows it. Grain: one row per run and marker_index.
with

markers as (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
    select * from {{ ref('int_run_intervals') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

reached as (
    -- each marker with the interval that ends at it (none for the first) and the one that follows
    select
        markers.run_id,
        markers.marker_index,
        markers.marker_label,
        markers.event_type,
        markers.event_at,
        case when ending.is_downtime then 0 else coalesce(ending.seconds, 0) end as active_seconds_of_interval,
        following.seconds as next_interval_seconds,
        row_number() over (
            partition by markers.run_id, markers.marker_label
            order by markers.marker_index
        ) as label_occurrence
    from markers
    left join intervals as ending
        on markers.run_id = ending.run_id
        and markers.marker_index = ending.interval_index + 1
    left join intervals as following
        on markers.run_id = following.run_id
        and markers.marker_index = following.interval_index
),

final as (
    select
        run_id,
        marker_index,
        marker_label,
        event_type,
        event_at,
        sum(active_seconds_of_interval) over (
            partition by run_id
            order by marker_index
        ) as active_seconds_to_marker,
        next_interval_seconds,
        label_occurrence = 1 as is_first_of_label,
        {{ runlens.build_started_at() }} as computed_at
    from reached
)

select * from final
