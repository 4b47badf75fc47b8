-- depends_on: {{ ref('int_run_versions') }}
-- The markers of every rank of the runs whose lines come from more than one rank, each matched
-- with the same marker of the run's other ranks (its label and occurrence: the second step_100
-- after a resume is occurrence 2), and how long after the first and before the last rank it
-- arrived (def_ranks in models/marts/ranks/_ranks__docs.md). Grain: one row per run, rank and kept
-- marker of that rank.
with

run_starts as (
    select
        run_id,
        rank
    from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and event_type = 'run_start' and {{ runlens.is_run_to_compute('run_id') }}
),

runs_with_ranks as (
    -- two or more ranks with a run_start: the ranks with markers (rank_kept.run_has_ranks)
    select run_id
    from run_starts
    group by run_id
    having min(rank) < max(rank)
),

events as (
    select occurrences.*
    from {{ ref('int_event_occurrences') }} as occurrences
    inner join runs_with_ranks on occurrences.run_id = runs_with_ranks.run_id
    where
        occurrences.occurrence = 1
        and occurrences.event_type in ('run_start', 'checkpoint', 'epoch_end', 'run_end')
        and {{ runlens.is_run_to_compute('occurrences.run_id') }}
),

{{ runlens.rank_marker_ctes('events') }},

rank_arrivals as (
    select
        rank_kept.*,
        row_number() over (
            partition by rank_kept.run_id, rank_kept.rank, rank_kept.marker_label
            order by rank_kept.rank_marker_index
        ) as label_occurrence
    from rank_kept
),

same_markers as (
    select
        rank_arrivals.*,
        row_number() over (
            partition by rank_arrivals.run_id, rank_arrivals.marker_label, rank_arrivals.label_occurrence
            order by rank_arrivals.event_at, rank_arrivals.rank
        ) as arrival_order,
        count(*)
            over (partition by rank_arrivals.run_id, rank_arrivals.marker_label, rank_arrivals.label_occurrence)
            as ranks_reached,
        min(rank_arrivals.event_at)
            over (partition by rank_arrivals.run_id, rank_arrivals.marker_label, rank_arrivals.label_occurrence)
            as first_arrival_at,
        max(rank_arrivals.event_at)
            over (partition by rank_arrivals.run_id, rank_arrivals.marker_label, rank_arrivals.label_occurrence)
            as last_arrival_at
    from rank_arrivals
),

last_ranks as (
    select
        run_id,
        marker_label,
        label_occurrence,
        rank as last_rank,
        event_id as last_event_id
    from same_markers
    where arrival_order = ranks_reached
),

final as (
    select
        same_markers.run_id,
        same_markers.rank,
        cast(same_markers.rank_marker_index as {{ dbt.type_bigint() }}) as rank_marker_index,
        same_markers.event_id,
        same_markers.event_type,
        same_markers.marker_label,
        cast(same_markers.label_occurrence as {{ dbt.type_bigint() }}) as label_occurrence,
        same_markers.step,
        same_markers.event_at,
        same_markers.run_end_status,
        same_markers.is_approximate,
        same_markers.approximation,
        cast(same_markers.ranks_reached as {{ dbt.type_bigint() }}) as ranks_reached,
        cast(same_markers.arrival_order as {{ dbt.type_bigint() }}) as arrival_order,
        same_markers.first_arrival_at,
        same_markers.last_arrival_at,
        last_ranks.last_rank,
        last_ranks.last_event_id,
        {{ runlens.seconds_between('same_markers.event_at', 'same_markers.last_arrival_at') }} as seconds_before_last,
        {{ runlens.build_started_at() }} as computed_at
    from same_markers
    inner join last_ranks
        on
        same_markers.run_id = last_ranks.run_id
        and same_markers.marker_label = last_ranks.marker_label
        and same_markers.label_occurrence = last_ranks.label_occurrence
)

select * from final
