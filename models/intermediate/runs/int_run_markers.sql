-- depends_on: {{ ref('int_run_versions') }}
-- The markers of each run in order (definitions: def_markers, def_ranks in
-- models/marts/runs/_runs__docs.md). Grain: one row per kept marker; marker_index numbers them from 1
-- within the run. Each rank's markers are kept first (macros/markers/rank_markers.sql); a run
-- whose lines come from one rank (almost every run) has those as its markers. A run with several
-- ranks has one marker per label and occurrence that any rank reached (int_run_rank_markers):
-- the first rank's run_start, and for every other marker the moment its last rank reached it (the
-- run is there when all its ranks are); a run_end is kept only when no rank went on past it.
with

events as (
    select * from {{ ref('int_event_occurrences') }}
    where
        occurrence = 1
        and event_type in ('run_start', 'checkpoint', 'epoch_end', 'run_end')
        and {{ runlens.is_run_to_compute('run_id') }}
),

{{ runlens.rank_marker_ctes('events') }},

single_rank_markers as (
    select
        run_id,
        rank_marker_index as marker_index,
        event_id,
        event_type,
        marker_label,
        event_at,
        step,
        run_end_status,
        is_approximate,
        approximation,
        rank,
        cast(1 as {{ dbt.type_bigint() }}) as ranks_reached,
        event_at as first_arrival_at
    from rank_kept
    where not run_has_ranks
),

folded as (
    -- the runs with ranks: each marker matched across ranks (int_run_rank_markers), at its first
    -- rank for a run_start and its last rank for any other marker
    select * from {{ ref('int_run_rank_markers') }}
    where
        arrival_order = case when event_type = 'run_start' then 1 else ranks_reached end
        and {{ runlens.is_run_to_compute('run_id') }}
),

last_progress as (
    select
        run_id,
        max(event_at) filter (where event_type != 'run_end') as last_progress_at
    from folded
    group by run_id
),

rank_run_markers as (
    select
        folded.*,
        row_number() over (
            partition by folded.run_id
            order by
                folded.event_at,
                {{ runlens.marker_type_order('folded.event_type') }},
                folded.step nulls first,
                -- markers of different ranks at one instant with one type and step: by event id
                folded.event_id
        ) as marker_index
    from folded
    inner join last_progress on folded.run_id = last_progress.run_id
    -- a run_end before another rank's later marker does not end the run
    where folded.event_type != 'run_end' or folded.event_at >= last_progress.last_progress_at
),

final as (
    select
        run_id,
        cast(marker_index as {{ dbt.type_bigint() }}) as marker_index,
        event_id,
        event_type,
        marker_label,
        event_at,
        step,
        run_end_status,
        is_approximate,
        approximation,
        rank,
        ranks_reached,
        first_arrival_at,
        {{ runlens.build_started_at() }} as computed_at
    from single_rank_markers
    union all
    select
        run_id,
        cast(marker_index as {{ dbt.type_bigint() }}) as marker_index,
        event_id,
        event_type,
        marker_label,
        event_at,
        step,
        run_end_status,
        is_approximate,
        approximation,
        rank,
        cast(ranks_reached as {{ dbt.type_bigint() }}) as ranks_reached,
        first_arrival_at,
        {{ runlens.build_started_at() }} as computed_at
    from rank_run_markers
)

select * from final
