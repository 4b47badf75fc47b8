-- depends_on: {{ ref('int_run_versions') }}
-- The profiler summary of each run: its latest `profile` event; of a run with ranks, the latest of
-- its lowest rank (rank 0 writes the run's own facts; each rank's is in int_run_rank_profiles).
-- Grain: one row per run that has a profile.
with

profiles as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and event_type = 'profile' and {{ runlens.is_run_to_compute('run_id') }}
),

ranked as (
    select
        run_id,
        event_id,
        event_at,
        profile_wall_seconds,
        profile_sections,
        profile_is_final,
        row_number() over (
            partition by run_id
            order by rank asc nulls first, event_at desc, file_path desc, line_number desc
        ) as recency_rank
    from profiles
),

final as (
    select
        ranked.run_id,
        ranked.event_id,
        ranked.event_at as profiled_at,
        ranked.profile_wall_seconds as wall_seconds,
        ranked.profile_sections as sections,
        ranked.profile_is_final as is_final,
        {{ runlens.build_started_at() }} as computed_at
    from ranked
    where ranked.recency_rank = 1
)

select * from final
