-- depends_on: {{ ref('int_run_versions') }}
-- The markers of each run in order (definition: def_markers in models/marts/_marts__docs.md).
-- Grain: one row per kept marker event; marker_index numbers them from 1 within the run.
-- One sort: each marker's position comes with the number of run_ends up to it, from which the
-- index among the kept markers follows (the markers dropped before a kept one are those before
-- the first run_start and the superseded run_ends after it).
with

events as (
    select * from {{ ref('int_event_occurrences') }}
    where
        occurrence = 1
        and event_type in ('run_start', 'checkpoint', 'epoch_end', 'run_end')
        and {{ runlens.is_run_to_compute('run_id') }}
),

ordered as (
    select
        event_id,
        run_id,
        event_type,
        event_at,
        step,
        run_end_status,
        is_approximate,
        approximation,
        row_number() over marker_order as marker_position,
        sum(case when event_type = 'run_end' then 1 else 0 end) over marker_order as run_ends_so_far
    from events
    -- the order is total (event ids are unique), so the default frame ends at the current row;
    -- a named window is not extended with a frame here because Spark cannot
    window marker_order as (
        partition by run_id
        order by
            event_at,
            case event_type
                when 'run_start' then 1
                when 'checkpoint' then 2
                when 'epoch_end' then 3
                when 'run_end' then 4
            end,
            step nulls first,
            file_path,
            line_number
    )
),

run_bounds as (
    -- the first run_start opens the run; the final run_end closes it unless a later
    -- run_start supersedes it (the run was resumed after it)
    select
        run_id,
        min(marker_position) filter (where event_type = 'run_start') as first_start_position,
        max(marker_position) filter (where event_type = 'run_start') as last_start_position,
        max(marker_position) filter (where event_type = 'run_end') as last_end_position,
        -- run_ends_so_far only grows: its least value on a run_start is its value on the first
        min(run_ends_so_far) filter (where event_type = 'run_start') as run_ends_before_start
    from ordered
    group by run_id
),

final_ends as (
    select
        run_id,
        first_start_position,
        run_ends_before_start,
        case when last_end_position > last_start_position then last_end_position end as final_end_position
    from run_bounds
    where first_start_position is not null
),

kept as (
    select
        ordered.*,
        -- kept so far, less the superseded run_ends since the first run_start
        ordered.marker_position - final_ends.first_start_position + 1
        - (ordered.run_ends_so_far - final_ends.run_ends_before_start)
        + case when ordered.marker_position = final_ends.final_end_position then 1 else 0 end as marker_index
    from ordered
    inner join final_ends on ordered.run_id = final_ends.run_id
    where
        ordered.marker_position >= final_ends.first_start_position
        and ordered.marker_position <= coalesce(final_ends.final_end_position, ordered.marker_position)
        and (ordered.event_type != 'run_end' or ordered.marker_position = final_ends.final_end_position)
),

final as (
    select
        kept.run_id,
        cast(kept.marker_index as {{ dbt.type_bigint() }}) as marker_index,
        kept.event_id,
        kept.event_type,
        case when kept.event_type = 'checkpoint' then 'step_' || kept.step else kept.event_type end as marker_label,
        kept.event_at,
        kept.step,
        kept.run_end_status,
        kept.is_approximate,
        kept.approximation,
        {{ runlens.build_started_at() }} as computed_at
    from kept
)

select * from final
