-- depends_on: {{ ref('int_run_versions') }}
-- Every valid line of a runlens event type (other events and utilization samples stay out:
-- int_utilization_samples) with its occurrence number
-- among exact duplicates: lines with the same run_id, rank, event, ts (as UTC), step and epoch are
-- one event; the first by file path and line number is occurrence 1, the accepted one
-- (input_contract.md, "Where every line ends up"). A line without a rank is rank 0's ("Ranks"):
-- the same marker from two ranks is two events.
-- Almost every event has one line, so the events with copies are found first, over one hash of
-- each line's key (a hash aggregate on one number that keeps only the hashes seen twice: few
-- rows; at 1M runs 8.0-9.4 s -> 6.2-6.3 s against the aggregate on the six columns), only the
-- lines of those hashes are numbered by a window over their exact keys (a sort of those few; a
-- line alone with its key after all is occurrence 1), and every line is then read once, with what
-- it carries, and joined to those numbers (a line with no copy is occurrence 1).
-- Incremental by run (macros/run_versions.sql). Grain: one row per valid line.
{%- set line_columns = [
    'event_id', 'file_path', 'line_number', 'run_id', 'rank', 'world_size', 'event_type', 'event_at', 'step',
    'epoch', 'collection', 'task', 'config', 'resources', 'run_end_status', 'profile_wall_seconds',
    'profile_sections', 'profile_is_final', 'profile_collective_sections', 'source_format', 'source_path',
    'is_approximate', 'approximation'
] %}
with

log_lines as {{ runlens.streamed_cte() }} (
    select * from {{ ref('stg_log_lines') }}
    where
        run_id is not null and not is_other_event and event_type != 'sample'
        and {{ runlens.is_run_to_compute('run_id') }}
),

event_keys as (
    -- only what finds the copies: the event's key, its hash and the line
    select
        file_path,
        line_number,
        run_id,
        coalesce(rank, 0) as rank,
        event_type,
        event_at,
        step,
        epoch,
        {{ runlens.row_hash(['run_id', 'coalesce(rank, 0)', 'event_type', 'event_at', 'step', 'epoch']) }} as key_hash
    from log_lines
),

copied_hashes as (
    -- the keys' hashes seen on more than one line: every event with copies, and perhaps a few
    -- distinct keys that hash alike
    select key_hash
    from event_keys
    group by key_hash
    having count(*) > 1
),

copied_occurrences as (
    -- the lines of those hashes numbered by a window over their exact keys (a sort of those few)
    select
        event_keys.file_path,
        event_keys.line_number,
        cast(row_number() over same_event as {{ dbt.type_bigint() }}) as occurrence,
        first_value(
            event_keys.file_path || ':' || cast(event_keys.line_number as {{ dbt.type_string() }})
        ) over same_event as first_event_id
    from event_keys
    inner join copied_hashes on event_keys.key_hash = copied_hashes.key_hash
    window same_event as (
        partition by
            event_keys.run_id, event_keys.rank, event_keys.event_type, event_keys.event_at, event_keys.step,
            event_keys.epoch
        order by event_keys.file_path asc, event_keys.line_number asc
    )
),

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
    from log_lines
),

final as (
    -- every line in one pass: a line with no copy is its event's occurrence 1
    select
        {% for column in line_columns %}valid_lines.{{ column }},
        {% endfor -%}
        coalesce(copied_occurrences.occurrence, cast(1 as {{ dbt.type_bigint() }})) as occurrence,
        coalesce(copied_occurrences.first_event_id, valid_lines.event_id) as first_event_id,
        {{ runlens.build_started_at() }} as computed_at
    from valid_lines
    left join copied_occurrences
        on valid_lines.file_path = copied_occurrences.file_path
        and valid_lines.line_number = copied_occurrences.line_number
)

select * from final
