-- depends_on: {{ ref('int_run_versions') }}
-- Every valid line of a runlens event type (other events and utilization samples stay out:
-- int_utilization_samples) with its occurrence number
-- among exact duplicates: lines with the same run_id, rank, event, ts (as UTC), step and epoch are
-- one event; the first by file path and line number is occurrence 1, the accepted one
-- (input_contract.md, "Where every line ends up"). A line without a rank is rank 0's ("Ranks"):
-- the same marker from two ranks is two events.
-- Almost every event has one line, so the events with copies are found first (a hash
-- aggregate that keeps only them: few rows), the lines are matched against those few, and only
-- their lines are numbered by a window (a sort).
-- Incremental by run (macros/run_versions.sql). Grain: one row per valid line.
{%- set event_key = ['run_id', 'rank', 'event_type', 'event_at', 'step', 'epoch'] %}
{%- set line_columns = [
    'event_id', 'file_path', 'line_number', 'run_id', 'rank', 'world_size', 'event_type', 'event_at', 'step',
    'epoch', 'collection', 'task', 'config', 'resources', 'run_end_status', 'profile_wall_seconds',
    'profile_sections', 'profile_is_final', 'profile_collective_sections', 'source_format', 'source_path',
    'is_approximate', 'approximation'
] %}
with

valid_lines as (
    select
        file_path || ':' || cast(line_number as {{ dbt.type_string() }}) as event_id,
        file_path,
        line_number,
        run_id,
        coalesce(rank, 0) as rank,
        world_size,
        event_type,
        event_at,
        step,
        epoch,
        collection,
        task,
        config,
        resources,
        run_end_status,
        profile_wall_seconds,
        profile_sections,
        profile_is_final,
        profile_collective_sections,
        source_format,
        source_path,
        is_approximate,
        approximation
    from {{ ref('stg_log_lines') }}
    where
        run_id is not null and not is_other_event and event_type != 'sample'
        and {{ runlens.is_run_to_compute('run_id') }}
),

copied_events as (
    select
        {{ event_key | join(', ') }},
        count(*) as copies
    from valid_lines
    group by {{ event_key | join(', ') }}
    having count(*) > 1
),

counted as (
    select
        valid_lines.*,
        coalesce(copied_events.copies, 1) as copies
    from valid_lines
    left join copied_events
        on valid_lines.run_id = copied_events.run_id
        and valid_lines.rank = copied_events.rank
        and valid_lines.event_type = copied_events.event_type
        and valid_lines.event_at = copied_events.event_at
        and valid_lines.step is not distinct from copied_events.step
        and valid_lines.epoch is not distinct from copied_events.epoch
),

single_lines as (
    select
        {{ line_columns | join(', ') }},
        cast(1 as {{ dbt.type_bigint() }}) as occurrence,
        event_id as first_event_id
    from counted
    where copies = 1
),

copied_lines as (
    select
        {{ line_columns | join(', ') }},
        cast(row_number() over same_event as {{ dbt.type_bigint() }}) as occurrence,
        first_value(event_id) over same_event as first_event_id
    from counted
    where copies > 1
    window same_event as (
        partition by {{ event_key | join(', ') }}
        order by file_path asc, line_number asc
    )
),

final as (
    select
        *,
        {{ runlens.build_started_at() }} as computed_at
    from single_lines
    union all
    select
        *,
        {{ runlens.build_started_at() }} as computed_at
    from copied_lines
)

select * from final
