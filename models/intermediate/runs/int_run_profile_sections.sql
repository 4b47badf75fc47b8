-- depends_on: {{ ref('int_run_versions') }}
-- Seconds per profiler section of each run, plus the `unattributed` remainder of the
-- profiled wall time that no section covers (never below 0).
-- Grain: one row per run and section.
with

profiles as (
    select * from {{ ref('int_run_profiles') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

section_entries as (
    {{ runlens.json_object_entries_query('profiles', 'sections', ['run_id']) }}
),

named_sections as (
    select
        run_id,
        entry_key as section,
        {{ runlens.json_to_double('entry_value') }} as seconds,
        {{ runlens.build_started_at() }} as computed_at
    from section_entries
),

attributed as (
    select
        run_id,
        sum(seconds) as attributed_seconds
    from named_sections
    group by run_id
),

unattributed as (
    select
        profiles.run_id,
        'unattributed' as section,
        greatest(profiles.wall_seconds - coalesce(attributed.attributed_seconds, 0), 0) as seconds,
        {{ runlens.build_started_at() }} as computed_at
    from profiles
    left join attributed on profiles.run_id = attributed.run_id
),

final as (
    select * from named_sections
    union all
    select * from unattributed
)

select * from final
