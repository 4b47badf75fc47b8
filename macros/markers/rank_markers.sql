{#- The kept markers of each rank of each run, in order (def_markers, def_ranks): the CTEs
    rank_ordered, rank_bounds, rank_final_ends and rank_kept over `events` (marker events with
    run_id, rank, event_id, event_type, event_at, step, run_end_status, is_approximate,
    approximation, file_path, line_number; the last two order ties only and are not carried on,
    to keep the rows small). Each rank's markers are kept as a single-process
    run's are: from its first run_start, with a run_end kept only when no later run_start
    supersedes it. rank_kept labels them (`step_<n>` for a checkpoint), numbers them from 1
    within the rank (rank_marker_index) and says whether the run has other ranks with markers
    (run_has_ranks: two or more ranks wrote a run_start). -#}
{% macro rank_marker_ctes(events) -%}
rank_ordered as (
    select
        event_id,
        run_id,
        rank,
        event_type,
        event_at,
        step,
        run_end_status,
        is_approximate,
        approximation,
        row_number() over marker_order as marker_position,
        sum(case when event_type = 'run_end' then 1 else 0 end) over marker_order as run_ends_so_far
    from {{ events }}
    -- the order is total (event ids are unique), so the default frame ends at the current row;
    -- a named window is not extended with a frame here because Spark cannot
    window marker_order as (
        partition by run_id, rank
        order by
            event_at,
            {{ runlens.marker_type_order('event_type') }},
            step nulls first,
            file_path,
            line_number
    )
),

rank_bounds as (
    -- the first run_start opens the rank's markers; the final run_end closes them unless a later
    -- run_start supersedes it (the run was resumed after it)
    select
        run_id,
        rank,
        min(marker_position) filter (where event_type = 'run_start') as first_start_position,
        max(marker_position) filter (where event_type = 'run_start') as last_start_position,
        max(marker_position) filter (where event_type = 'run_end') as last_end_position,
        -- run_ends_so_far only grows: its least value on a run_start is its value on the first
        min(run_ends_so_far) filter (where event_type = 'run_start') as run_ends_before_start
    from rank_ordered
    group by run_id, rank
),

rank_final_ends as (
    -- one row per rank with a run_start: few, so the run's other ranks are a cheap window here
    select
        run_id,
        rank,
        first_start_position,
        run_ends_before_start,
        case when last_end_position > last_start_position then last_end_position end as final_end_position,
        coalesce(min(rank) over (partition by run_id) < max(rank) over (partition by run_id), false) as run_has_ranks
    from rank_bounds
    where first_start_position is not null
),

rank_kept as (
    select
        rank_ordered.*,
        rank_final_ends.run_has_ranks,
        case
            when rank_ordered.event_type = 'checkpoint' then 'step_' || rank_ordered.step
            else rank_ordered.event_type
        end as marker_label,
        -- kept so far, less the superseded run_ends since the first run_start
        rank_ordered.marker_position - rank_final_ends.first_start_position + 1
        - (rank_ordered.run_ends_so_far - rank_final_ends.run_ends_before_start)
        + case
            when rank_ordered.marker_position = rank_final_ends.final_end_position then 1 else 0
        end as rank_marker_index
    from rank_ordered
    inner join rank_final_ends
        on rank_ordered.run_id = rank_final_ends.run_id and rank_ordered.rank is not distinct from rank_final_ends.rank
    where
        rank_ordered.marker_position >= rank_final_ends.first_start_position
        and rank_ordered.marker_position <= coalesce(rank_final_ends.final_end_position, rank_ordered.marker_position)
        and (rank_ordered.event_type != 'run_end' or rank_ordered.marker_position = rank_final_ends.final_end_position)
)
{%- endmacro %}

{#- The order of marker types at the same instant: run_start, checkpoint, epoch_end, run_end. -#}
{% macro marker_type_order(event_type) -%}
    case {{ event_type }}
        when 'run_start' then 1
        when 'checkpoint' then 2
        when 'epoch_end' then 3
        when 'run_end' then 4
    end
{%- endmacro %}
