-- depends_on: {{ ref('int_run_versions') }}
-- Each run's status, measurement source and wall-time figures (Grain: one row per run_id)
-- (definitions in _runs__docs.md: def_status, def_exclusion_reason, def_wall_seconds, ...).
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{#- downtime counts against the event-log span only: a profiler's wall time is in-process time -#}
{%- set downtime = "case when measurement_source = 'profiler' then 0 else coalesce(downtime_seconds, 0) end" %}
with

attributes as (
    select * from {{ ref('int_run_attributes') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

timings as (
    select * from {{ ref('int_run_timings') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

profiles as (
    select * from {{ ref('int_run_profiles') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

classified as (
    select
        attributes.run_id,
        attributes.collection,
        attributes.task,
        attributes.source_format,
        attributes.has_run_start,
        attributes.last_event_at,
        timings.started_at,
        timings.ended_at,
        timings.restarts,
        timings.approximate_markers,
        timings.interval_count,
        timings.downtime_seconds,
        timings.longest_interval_label,
        timings.longest_interval_seconds,
        timings.event_log_wall_seconds,
        timings.pre_tail_seconds,
        timings.tail_seconds,
        timings.has_clock_skew,
        -- a profile written while the run was still going (final false) measures no finished run
        case when profiles.is_final then profiles.wall_seconds end as profile_wall_seconds,
        profiles.run_id is not null as has_profile,
        case
            when timings.ended_at is not null or timings.has_clock_skew
                then case when timings.run_end_status = 'completed' then 'completed' else 'failed' end
            when profiles.is_final and profiles.wall_seconds is not null then 'completed'
            else 'incomplete'
        end as status,
        case
            when timings.has_clock_skew then null
            when timings.ended_at is not null then 'event_log'
            when profiles.is_final and profiles.wall_seconds is not null then 'profiler'
        end as measurement_source
    from attributes
    left join timings on attributes.run_id = timings.run_id
    left join profiles on attributes.run_id = profiles.run_id
),

excluded as (
    select
        *,
        case
            when not has_run_start then 'no_run_start'
            when has_clock_skew then 'clock_skew'
            when status = 'failed' then 'failed'
            when status = 'incomplete' then 'incomplete'
        end as exclusion_reason,
        case measurement_source
            when 'event_log' then event_log_wall_seconds
            when 'profiler' then profile_wall_seconds
        end as wall_seconds
    from classified
),

final as (
    select
        run_id,
        collection,
        task,
        status,
        exclusion_reason,
        exclusion_reason is null as is_analyzed,
        measurement_source,
        has_profile,
        started_at,
        ended_at,
        wall_seconds,
        pre_tail_seconds,
        tail_seconds,
        case
            when event_log_wall_seconds > 0 and measurement_source = 'event_log'
                then tail_seconds / event_log_wall_seconds
        end as tail_share,
        wall_seconds - {{ downtime }} as active_seconds,
        {{ downtime }} as downtime_seconds,
        coalesce(interval_count, 0) as interval_count,
        longest_interval_label,
        longest_interval_seconds,
        coalesce(restarts, 0) as restarts,
        coalesce(source_format, 'jsonl') as source_format,
        coalesce(approximate_markers, 0) > 0 as has_approximate_markers,
        coalesce(approximate_markers, 0) as approximate_markers,
        last_event_at,
        {{ runlens.build_started_at() }} as computed_at
    from excluded
)

select * from final
