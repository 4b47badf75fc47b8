-- depends_on: {{ ref('int_run_versions') }}
-- How far each run had got at each of its markers, for the live-run estimates (def_live_eta):
-- the active seconds from its first run_start to the marker (downtime left out) and the seconds
-- of the interval that follows it. Every marker but a run's first closes one interval
-- (int_run_intervals carries its closing marker), so the markers come from the intervals and
-- the first markers, without joining the two again. Grain: one row per run and marker_index.
with

first_markers as (
    select * from {{ ref('int_run_markers') }}
    where marker_index = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
    select * from {{ ref('int_run_intervals') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

reached as (
    -- each marker with the interval that ends at it (none for the first)
    select
        run_id,
        interval_index + 1 as marker_index,
        to_marker as marker_label,
        to_event_type as event_type,
        ended_at as event_at,
        seconds as seconds_of_interval,
        seconds - down_seconds as active_seconds_of_interval
    from intervals
    union all
    select
        run_id,
        marker_index,
        marker_label,
        event_type,
        event_at,
        cast(null as {{ runlens.type_double() }}) as seconds_of_interval,
        0 as active_seconds_of_interval
    from first_markers
),

progressed as (
    -- one pass in marker order: the running active seconds, and the next marker's interval
    select
        run_id,
        marker_index,
        marker_label,
        event_type,
        event_at,
        sum(active_seconds_of_interval) over marker_order as active_seconds_to_marker,
        lead(seconds_of_interval) over marker_order as next_interval_seconds
    from reached
    window marker_order as (partition by run_id order by marker_index)
),

final as (
    select
        run_id,
        marker_index,
        marker_label,
        event_type,
        event_at,
        active_seconds_to_marker,
        next_interval_seconds,
        row_number() over (
            partition by run_id, marker_label
            order by marker_index
        ) = 1 as is_first_of_label,
        {{ runlens.build_started_at() }} as computed_at
    from progressed
)

select * from final
