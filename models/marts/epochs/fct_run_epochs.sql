-- depends_on: {{ ref('int_run_versions') }}
-- One row per epoch of a run: from the previous epoch_end (the first run_start for the first
-- epoch) to this epoch_end (def_epochs). Grain: one row per run and epoch_index.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

markers as (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

events as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),


intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

run_starts as (
    -- marker 1 of a run is always its first run_start (def_markers)
    select
        run_id,
        marker_index,
        event_at
    from markers
    where marker_index = 1
),

epoch_ends as (
    select
        markers.run_id,
        markers.marker_index,
        markers.event_at,
        events.epoch as logged_epoch,
        row_number() over (partition by markers.run_id order by markers.marker_index) as epoch_index
    from markers
    left join events on markers.event_id = events.event_id
    where markers.event_type = 'epoch_end'
),

bounded as (
    select
        epoch_ends.run_id,
        epoch_ends.epoch_index,
        epoch_ends.logged_epoch,
        coalesce(previous_ends.marker_index, run_starts.marker_index) as from_marker_index,
        epoch_ends.marker_index as to_marker_index,
        coalesce(previous_ends.event_at, run_starts.event_at) as started_at,
        epoch_ends.event_at as ended_at
    from epoch_ends
    inner join run_starts on epoch_ends.run_id = run_starts.run_id
    left join epoch_ends as previous_ends
        on epoch_ends.run_id = previous_ends.run_id
        and epoch_ends.epoch_index = previous_ends.epoch_index + 1
),

downtimes as (
    -- the intervals inside an epoch run from its opening marker to the one before its epoch_end
    -- (they carry the run's collection and task)
    select
        bounded.run_id,
        bounded.epoch_index,
        intervals.collection,
        intervals.task,
        sum(intervals.down_seconds) as downtime_seconds
    from bounded
    inner join intervals
        on bounded.run_id = intervals.run_id
        and bounded.from_marker_index <= intervals.interval_index
        and bounded.to_marker_index > intervals.interval_index
    group by bounded.run_id, bounded.epoch_index, intervals.collection, intervals.task
),

final as (
    select
        bounded.run_id,
        downtimes.collection,
        downtimes.task,
        cast(bounded.epoch_index as {{ dbt.type_bigint() }}) as epoch_index,
        bounded.logged_epoch,
        bounded.started_at,
        bounded.ended_at,
        {{ runlens.seconds_between('bounded.started_at', 'bounded.ended_at') }} as seconds,
        downtimes.downtime_seconds,
        {{ runlens.seconds_between('bounded.started_at', 'bounded.ended_at') }}
        - downtimes.downtime_seconds as active_seconds,
        {{ runlens.build_started_at() }} as computed_at
    from bounded
    inner join downtimes
        on bounded.run_id = downtimes.run_id
        and bounded.epoch_index = downtimes.epoch_index
)

select * from final
