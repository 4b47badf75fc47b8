-- depends_on: {{ ref('int_run_versions') }}
-- What each interval of a run was spent on (def_interval_sections): the profiler sections' seconds
-- between consecutive profiles (int_run_profile_stretches), laid on the interval they overlap,
-- with the interval's profiled time in no section (`unattributed`) and its time no profile covers
-- (`unprofiled`): an interval's rows add up to its seconds (a row of 0 seconds is left out). Only
-- runs with at least two profiles.
-- Grain: one row per run, interval_index (downtime aside) and section.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

stretch_sections as (
    select * from {{ ref('int_run_profile_stretches') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
    select * from {{ ref('fct_run_intervals') }}
    where not is_downtime and {{ runlens.is_run_to_compute('run_id') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

interval_kinds as (
    select * from {{ ref('fct_run_interval_kinds') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

stretches as (
    select distinct
        stretch_sections.run_id,
        stretch_sections.profile_index,
        stretch_sections.stretch_started_at,
        stretch_sections.stretch_ended_at,
        stretch_sections.stretch_seconds
    from stretch_sections
    where stretch_sections.is_on_timeline and stretch_sections.stretch_seconds > 0
),

timeline_runs as (
    select distinct run_id from stretches
),

stretch_overlaps as (
    -- the part of each stretch inside each interval: a section's seconds are spread over its
    -- stretch evenly, so an interval takes its overlap's share of them
    select
        intervals.run_id,
        intervals.interval_index,
        stretches.profile_index,
        stretches.stretch_seconds,
        {{ runlens.seconds_between(
            'case when stretches.stretch_started_at > intervals.started_at'
            ~ ' then stretches.stretch_started_at else intervals.started_at end',
            'case when stretches.stretch_ended_at < intervals.ended_at'
            ~ ' then stretches.stretch_ended_at else intervals.ended_at end'
        ) }} as overlap_seconds
    from intervals
    inner join stretches
        on intervals.run_id = stretches.run_id
        and intervals.ended_at > stretches.stretch_started_at
        and intervals.started_at < stretches.stretch_ended_at
),

profiled as (
    select
        run_id,
        interval_index,
        sum(overlap_seconds) as profiled_seconds
    from stretch_overlaps
    group by run_id, interval_index
),

spread_sections as (
    select
        stretch_overlaps.run_id,
        stretch_overlaps.interval_index,
        stretch_sections.section,
        sum(stretch_sections.seconds * stretch_overlaps.overlap_seconds / stretch_overlaps.stretch_seconds) as seconds
    from stretch_overlaps
    inner join stretch_sections
        on stretch_overlaps.run_id = stretch_sections.run_id
        and stretch_overlaps.profile_index = stretch_sections.profile_index
    group by stretch_overlaps.run_id, stretch_overlaps.interval_index, stretch_sections.section
),

section_sums as (
    select
        run_id,
        interval_index,
        sum(seconds) as section_seconds
    from spread_sections
    group by run_id, interval_index
),

scaled as (
    -- sections never add up to more than the profiled time (clocks that differ by a few
    -- milliseconds): where they would, they are scaled down to it
    select
        spread_sections.run_id,
        spread_sections.interval_index,
        spread_sections.section,
        case
            when section_sums.section_seconds > profiled.profiled_seconds
                then spread_sections.seconds * profiled.profiled_seconds / section_sums.section_seconds
            else spread_sections.seconds
        end as seconds
    from spread_sections
    inner join section_sums
        on spread_sections.run_id = section_sums.run_id and spread_sections.interval_index = section_sums.interval_index
    inner join profiled
        on spread_sections.run_id = profiled.run_id and spread_sections.interval_index = profiled.interval_index
),

interval_rows as (
    select
        intervals.run_id,
        intervals.interval_index,
        intervals.seconds as interval_seconds,
        coalesce(profiled.profiled_seconds, 0) as profiled_seconds,
        coalesce(section_sums.section_seconds, 0) as section_seconds
    from intervals
    inner join timeline_runs on intervals.run_id = timeline_runs.run_id
    left join profiled
        on intervals.run_id = profiled.run_id and intervals.interval_index = profiled.interval_index
    left join section_sums
        on intervals.run_id = section_sums.run_id and intervals.interval_index = section_sums.interval_index
),

every_row as (
    select
        run_id,
        interval_index,
        section,
        seconds
    from scaled
    union all
    select
        run_id,
        interval_index,
        'unattributed' as section,
        case when profiled_seconds > section_seconds then profiled_seconds - section_seconds else 0 end as seconds
    from interval_rows
    union all
    select
        run_id,
        interval_index,
        'unprofiled' as section,
        case when interval_seconds > profiled_seconds then interval_seconds - profiled_seconds else 0 end as seconds
    from interval_rows
),

{{ runlens.goodput_section_bucket_ctes('every_row') }},

final as (
    select
        every_row.run_id,
        intervals.collection,
        intervals.task,
        every_row.interval_index,
        intervals.label,
        intervals.position_index,
        intervals.position_label,
        intervals.is_pre_epoch,
        -- the part of the run's wall time the interval is in (def_wall_time_parts)
        case
            when intervals.is_pre_epoch and intervals.interval_index = 1 then 'opening_block'
            when intervals.is_pre_epoch then 'later_windows'
            when runs.tail_seconds is not null then 'final_tail'
            else 'other'
        end as wall_time_part,
        interval_kinds.interval_kind,
        every_row.section,
        section_bucket_of.bucket,
        {{ runlens.whole_microseconds('every_row.seconds') }} as seconds,
        intervals.seconds as interval_seconds,
        case when intervals.seconds > 0 then every_row.seconds / intervals.seconds end as share_of_interval,
        {{ runlens.build_started_at() }} as computed_at
    from every_row
    inner join intervals
        on every_row.run_id = intervals.run_id and every_row.interval_index = intervals.interval_index
    inner join runs on every_row.run_id = runs.run_id
    inner join interval_kinds
        on every_row.run_id = interval_kinds.run_id and every_row.interval_index = interval_kinds.interval_index
    left join section_bucket_of on every_row.section = section_bucket_of.section
    where every_row.seconds > 0
)

select * from final
