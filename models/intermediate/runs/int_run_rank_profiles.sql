-- depends_on: {{ ref('int_run_versions') }}
-- Every profile of every rank of the runs whose lines come from more than one rank, with the
-- rank's busy time so far: its sections' seconds less those of the sections it names as holding a
-- synchronizing collective (`collective_sections`, where a rank waits for the others), and the
-- busy seconds since its previous profile (def_ranks in models/marts/ranks/_ranks__docs.md). A
-- section name is matched against collective_sections by its JSON text, so a name that JSON
-- must escape (a quote, a backslash, a control character) never counts as collective.
-- Grain: one row per run, rank and profile.
with

runs_with_ranks as (
    -- the runs int_run_rank_markers holds (one row each: few)
    select distinct run_id from {{ ref('int_run_rank_markers') }}
),

profiles as (
    select
        occurrences.event_id,
        occurrences.run_id,
        occurrences.rank,
        occurrences.event_at,
        occurrences.file_path,
        occurrences.line_number,
        occurrences.profile_wall_seconds,
        occurrences.profile_sections,
        occurrences.profile_is_final,
        {{ runlens.json_to_text('occurrences.profile_collective_sections') }} as collective_sections_text
    from {{ ref('int_event_occurrences') }} as occurrences
    inner join runs_with_ranks on occurrences.run_id = runs_with_ranks.run_id
    where
        occurrences.occurrence = 1
        and occurrences.event_type = 'profile'
        and {{ runlens.is_run_to_compute('occurrences.run_id') }}
),

section_entries as (
    {{ runlens.json_object_entries_query('profiles', 'profile_sections', ['event_id', 'collective_sections_text']) }}
),

section_totals as (
    select
        event_id,
        sum({{ runlens.json_to_double('entry_value') }}) as section_seconds,
        sum(
            case
                when {{ dbt.position("'\"' || entry_key || '\"'", 'collective_sections_text') }} > 0
                    then {{ runlens.json_to_double('entry_value') }}
                else 0
            end
        ) as collective_seconds
    from section_entries
    group by event_id
),

ordered as (
    select
        profiles.event_id,
        profiles.run_id,
        profiles.rank,
        profiles.event_at,
        profiles.profile_wall_seconds as wall_seconds,
        profiles.profile_is_final as is_final,
        coalesce(section_totals.section_seconds, 0) as section_seconds,
        coalesce(section_totals.collective_seconds, 0) as collective_seconds,
        coalesce(section_totals.section_seconds, 0) - coalesce(section_totals.collective_seconds, 0) as busy_seconds,
        row_number() over (
            partition by profiles.run_id, profiles.rank
            order by profiles.event_at, profiles.file_path, profiles.line_number
        ) as profile_index
    from profiles
    left join section_totals on profiles.event_id = section_totals.event_id
),

final as (
    select
        ordered.run_id,
        ordered.rank,
        cast(ordered.profile_index as {{ dbt.type_bigint() }}) as profile_index,
        ordered.event_id,
        ordered.event_at,
        ordered.wall_seconds,
        ordered.is_final,
        ordered.section_seconds,
        ordered.collective_seconds,
        ordered.busy_seconds,
        ordered.busy_seconds - coalesce(previous.busy_seconds, 0) as busy_seconds_since_previous,
        {{ runlens.build_started_at() }} as computed_at
    from ordered
    left join ordered as previous
        on
        ordered.run_id = previous.run_id
        and ordered.rank = previous.rank
        and ordered.profile_index = previous.profile_index + 1
)

select * from final
