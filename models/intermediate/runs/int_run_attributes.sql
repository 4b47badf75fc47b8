-- depends_on: {{ ref('int_run_versions') }}
-- Who a run is: its collection and task (from its first run_start) and when it was last heard
-- from. Grain: one row per run_id that has at least one accepted event.
with

events as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

first_starts as (
    select
        run_id,
        collection,
        task,
        source_format,
        row_number() over (partition by run_id order by event_at, file_path, line_number) as start_rank
    from events
    where event_type = 'run_start'
),

heard as (
    select
        run_id,
        min(event_at) as first_event_at,
        max(event_at) as last_event_at,
        count(*) as event_count
    from events
    group by run_id
),

final as (
    select
        heard.run_id,
        first_starts.collection,
        first_starts.task,
        first_starts.source_format,
        first_starts.run_id is not null as has_run_start,
        heard.first_event_at,
        heard.last_event_at,
        heard.event_count,
        {{ runlens.build_started_at() }} as computed_at
    from heard
    left join first_starts
        on heard.run_id = first_starts.run_id
        and first_starts.start_rank = 1
)

select * from final
