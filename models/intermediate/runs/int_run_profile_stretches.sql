-- depends_on: {{ ref('int_run_versions') }}
-- What each profiler section took between two consecutive profiles of a run (def_profile_stretches):
-- a profile is cumulative, so the difference from the profile before it is what each section took
-- in the stretch between them. The run's profiles are its lowest rank's (as int_run_profiles).
-- Grain: one row per run, profile_index and section (the sections that profile names).
with

profiles as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and event_type = 'profile' and {{ runlens.is_run_to_compute('run_id') }}
),

sessions as (
    select * from {{ ref('int_run_sessions') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

lowest_ranks as (
    select
        run_id,
        min(coalesce(rank, -1)) as rank_key
    from profiles
    group by run_id
),

run_profiles as (
    select
        profiles.run_id,
        profiles.event_at,
        profiles.profile_wall_seconds,
        profiles.profile_sections,
        row_number() over (
            partition by profiles.run_id
            order by profiles.event_at, profiles.file_path, profiles.line_number
        ) as profile_index
    from profiles
    inner join lowest_ranks
        on profiles.run_id = lowest_ranks.run_id and coalesce(profiles.rank, -1) = lowest_ranks.rank_key
),

placed as (
    -- each profile in the session it was written in (a profile before the run's first run_start
    -- belongs to none and is left out)
    select
        run_profiles.*,
        sessions.session_index,
        sessions.started_at as session_started_at
    from run_profiles
    inner join sessions
        on run_profiles.run_id = sessions.run_id
        and run_profiles.event_at >= sessions.started_at
        and (sessions.next_started_at is null or run_profiles.event_at < sessions.next_started_at)
),

profile_counts as (
    -- a run with at least two profiles has its sections on its timeline (def_sections_on_timeline)
    select
        run_id,
        count(*) >= 2 as is_on_timeline
    from placed
    group by run_id
),

paired as (
    select
        placed.*,
        previous.event_at as previous_at,
        previous.session_index as previous_session_index,
        previous.profile_wall_seconds as previous_wall_seconds,
        {{ runlens.seconds_between('placed.session_started_at', 'placed.event_at') }} as session_elapsed_seconds
    from placed
    left join placed as previous
        on placed.run_id = previous.run_id and previous.profile_index + 1 = placed.profile_index
),

stretches as (
    -- a profile after another of its session counts from it; a session's first profile from the
    -- session's run_start, carrying on from the run's previous profile when its wall time is
    -- nearer that profile's plus the time since the run_start than that time alone (the writer
    -- carries its totals over a resume; a process that starts from 0 resets them)
    select
        run_id,
        profile_index,
        session_index,
        event_at as stretch_ended_at,
        case when previous_session_index = session_index then previous_at else session_started_at end
            as stretch_started_at,
        case
            when previous_at is null then false
            when previous_session_index = session_index then true
            else
                abs(profile_wall_seconds - previous_wall_seconds - session_elapsed_seconds)
                < abs(profile_wall_seconds - session_elapsed_seconds)
        end as is_carried_over,
        profile_sections
    from paired
),

section_entries as (
    {{ runlens.json_object_entries_query('run_profiles', 'profile_sections', ['run_id', 'profile_index']) }}
),

section_totals as (
    select
        run_id,
        profile_index,
        entry_key as section,
        {{ runlens.json_to_double('entry_value') }} as seconds
    from section_entries
),

final as (
    select
        stretches.run_id,
        stretches.profile_index,
        stretches.session_index,
        stretches.stretch_started_at,
        stretches.stretch_ended_at,
        {{ runlens.seconds_between('stretches.stretch_started_at', 'stretches.stretch_ended_at') }}
            as stretch_seconds,
        stretches.is_carried_over,
        profile_counts.is_on_timeline,
        current_totals.section,
        -- a total never falls within a process: a smaller one than before counts as 0
        greatest(
            current_totals.seconds
            - case when stretches.is_carried_over then coalesce(previous_totals.seconds, 0) else 0 end,
            0
        ) as seconds,
        {{ runlens.build_started_at() }} as computed_at
    from stretches
    inner join profile_counts on stretches.run_id = profile_counts.run_id
    inner join section_totals as current_totals
        on stretches.run_id = current_totals.run_id and stretches.profile_index = current_totals.profile_index
    left join section_totals as previous_totals
        on stretches.run_id = previous_totals.run_id
        and stretches.profile_index = previous_totals.profile_index + 1
        and current_totals.section = previous_totals.section
)

select * from final
