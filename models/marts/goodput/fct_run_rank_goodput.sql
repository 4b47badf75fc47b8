-- Each rank of a run with several ranks, its share of the run's wall time in the goodput buckets
-- (def_rank_goodput): the run's timeline (fct_run_goodput: down, start-up, redone progress, the
-- final tail) with the rank's own profiler sections and its own wait for the slowest rank
-- (fct_run_ranks) carved from the training time that is left.
-- Grain: one row per run with ranks (and a collection) and rank.
with

runs as (
    select * from {{ ref('fct_run_goodput') }}
    where has_ranks
),

ranks as (
    select * from {{ ref('fct_run_ranks') }}
),

rank_profiles as (
    select * from {{ ref('int_run_rank_profiles') }}
),

events as (
    select * from {{ ref('int_event_occurrences') }}
    where event_type = 'profile' and occurrence = 1
),

latest_profile_indexes as (
    select
        run_id,
        rank,
        max(profile_index) as profile_index
    from rank_profiles
    group by run_id, rank
),

latest_profiles as (
    -- each rank's latest profile, with its sections
    select
        rank_profiles.run_id,
        rank_profiles.rank,
        events.profile_sections
    from rank_profiles
    inner join latest_profile_indexes
        on rank_profiles.run_id = latest_profile_indexes.run_id
        and rank_profiles.rank = latest_profile_indexes.rank
        and rank_profiles.profile_index = latest_profile_indexes.profile_index
    inner join events on rank_profiles.event_id = events.event_id
),

section_entries as (
    {{ runlens.json_object_entries_query('latest_profiles', 'profile_sections', ['run_id', 'rank']) }}
),

profile_sections as (
    select
        run_id,
        rank,
        entry_key as section,
        {{ runlens.json_to_double('entry_value') }} as seconds
    from section_entries
),

{{ runlens.goodput_section_ctes('profile_sections', ['run_id', 'rank']) }},

measured as (
    select
        ranks.run_id,
        ranks.rank,
        runs.collection,
        runs.task,
        runs.wall_seconds,
        runs.start_up_seconds + runs.checkpoint_restore_seconds as start_up_total_seconds,
        coalesce(sections.checkpoint_restore_seconds, 0) as restore_section_seconds,
        runs.redone_seconds,
        runs.lost_seconds,
        runs.silent_seconds,
        runs.down_seconds,
        runs.final_tail_seconds,
        coalesce(sections.training_seconds, 0) as training_section_seconds,
        coalesce(sections.checkpoint_save_seconds, 0) as save_section_seconds,
        coalesce(sections.evaluation_seconds, 0) as evaluation_section_seconds,
        coalesce(sections.data_loading_seconds, 0) as data_loading_section_seconds,
        sections.run_id is not null as has_sections,
        sections.training_seconds is not null as has_training_sections,
        ranks.lost_waiting_seconds as rank_waiting_measured_seconds
    from ranks
    inner join runs on ranks.run_id = runs.run_id
    left join sections on ranks.run_id = sections.run_id and ranks.rank = sections.rank
),

{{ runlens.goodput_carving_ctes('measured') }},

final as (
    select
        run_id,
        rank,
        collection,
        task,
        wall_seconds,
        {{ runlens.goodput_bucket_columns() }},
        has_sections,
        has_training_sections
    from carved_to_productive
)

select * from final
