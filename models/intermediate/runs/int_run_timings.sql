-- depends_on: {{ ref('int_run_versions') }}
-- Event-log timings of each run that has a run_start: span, tail, downtime and the longest
-- interval (definitions: def_wall_seconds, def_final_epoch_end, def_downtime,
-- def_longest_interval). Grain: one row per run with at least one marker.
with

markers as {{ runlens.streamed_cte() }} (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

intervals as {{ runlens.streamed_cte() }} (
    select * from {{ ref('int_run_intervals') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

run_ends as (
    -- the latest run_end of the run (ties to the last by file and line), whichever markers it
    -- kept: an aggregate, not a sort
    select
        run_id,
        max(event_at) as latest_run_end_at,
        {{ runlens.arg_max('run_end_status', ['event_at', 'file_path', 'line_number']) }} as latest_run_end_status
    from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and event_type = 'run_end' and {{ runlens.is_run_to_compute('run_id') }}
    group by run_id
),

final_epoch_ends as (
    -- the step of the run's last epoch_end (ties to the last marker)
    select
        run_id,
        max(event_at) as final_epoch_end_at,
        {{ runlens.arg_max('step', ['event_at', 'marker_index']) }} as final_epoch_end_step
    from markers
    where event_type = 'epoch_end'
    group by run_id
),

training_after_final_epoch_ends as (
    -- a checkpoint after the last epoch_end that saved a later step than that epoch_end's:
    -- training went on past it, so the time after it is no final tail (without both steps,
    -- nothing says so: a save after the last epoch_end is the tail's)
    select distinct markers.run_id
    from markers
    inner join final_epoch_ends on markers.run_id = final_epoch_ends.run_id
    where
        markers.event_type = 'checkpoint'
        and markers.event_at > final_epoch_ends.final_epoch_end_at
        and markers.step > final_epoch_ends.final_epoch_end_step
),

marker_summary as (
    select
        run_id,
        min(event_at) filter (where marker_index = 1) as started_at,
        max(event_at) filter (where event_type = 'run_end') as ended_at,
        max(event_at) filter (where event_type = 'epoch_end') as final_epoch_end_at,
        max(run_end_status) filter (where event_type = 'run_end') as final_run_end_status,
        count(*) filter (where event_type = 'run_start') - 1 as restarts,
        count(*) filter (where is_approximate) as approximate_markers,
        -- a run_end an importer inferred from the run's last event says so (input_contract.md:
        -- its approximation starts `run_end taken from the last`): where the run really ended is not known
        count(*) filter (
            where event_type = 'run_end' and is_approximate and approximation like 'run_end taken from the last%'
        ) > 0 as is_run_end_inferred
    from markers
    group by run_id
),

interval_summary as (
    select
        run_id,
        count(*) as interval_count,
        coalesce(sum(down_seconds), 0) as downtime_seconds
    from intervals
    group by run_id
),

longest_seconds as (
    select
        run_id,
        max(seconds) as longest_seconds
    from intervals
    group by run_id
),

longest_indexes as (
    -- the longest interval, ties to the lowest number: aggregates and joins, not a sort
    select
        intervals.run_id,
        min(intervals.interval_index) as longest_interval_index
    from intervals
    inner join longest_seconds
        on intervals.run_id = longest_seconds.run_id
        and intervals.seconds = longest_seconds.longest_seconds
    group by intervals.run_id
),

longest as (
    select
        intervals.run_id,
        intervals.label as longest_interval_label,
        intervals.seconds as longest_interval_seconds
    from intervals
    inner join longest_indexes
        on intervals.run_id = longest_indexes.run_id
        and intervals.interval_index = longest_indexes.longest_interval_index
),

final as (
    select
        marker_summary.run_id,
        marker_summary.started_at,
        marker_summary.ended_at,
        marker_summary.final_epoch_end_at,
        marker_summary.restarts,
        marker_summary.approximate_markers,
        coalesce(marker_summary.final_run_end_status, run_ends.latest_run_end_status) as run_end_status,
        coalesce(
            marker_summary.ended_at is null and run_ends.latest_run_end_at < marker_summary.started_at,
            false
        ) as has_clock_skew,
        {{ runlens.seconds_between('marker_summary.started_at', 'marker_summary.ended_at') }}
            as event_log_wall_seconds,
        -- a final tail only after training ended, and only where the run's end was measured
        case
            when
                marker_summary.ended_at is not null
                and training_after_final_epoch_ends.run_id is null
                and not marker_summary.is_run_end_inferred
                then {{ runlens.seconds_between('marker_summary.started_at', 'marker_summary.final_epoch_end_at') }}
        end as pre_tail_seconds,
        -- an inferred run_end leaves the tail unmeasured
        case
            when training_after_final_epoch_ends.run_id is null and not marker_summary.is_run_end_inferred
                then {{ runlens.seconds_between('marker_summary.final_epoch_end_at', 'marker_summary.ended_at') }}
        end as tail_seconds,
        training_after_final_epoch_ends.run_id is not null as has_training_after_final_epoch_end,
        marker_summary.is_run_end_inferred,
        coalesce(interval_summary.interval_count, 0) as interval_count,
        coalesce(interval_summary.downtime_seconds, 0) as downtime_seconds,
        longest.longest_interval_label,
        longest.longest_interval_seconds,
        {{ runlens.build_started_at() }} as computed_at
    from marker_summary
    left join run_ends on marker_summary.run_id = run_ends.run_id
    left join interval_summary on marker_summary.run_id = interval_summary.run_id
    left join longest on marker_summary.run_id = longest.run_id
    left join training_after_final_epoch_ends on marker_summary.run_id = training_after_final_epoch_ends.run_id
)

select * from final
