-- The profiler summary of each run: its latest `profile` event.
-- Grain: one row per run that has a profile.
with

profiles as (
    select * from {{ ref('stg_events') }}
    where event_type = 'profile'
),

ranked as (
    select
        run_id,
        event_id,
        event_at,
        profile_wall_seconds,
        profile_sections,
        row_number() over (
            partition by run_id
            order by event_at desc, file_path desc, line_number desc
        ) as recency_rank
    from profiles
),

final as (
    select
        run_id,
        event_id,
        event_at as profiled_at,
        profile_wall_seconds as wall_seconds,
        profile_sections as sections
    from ranked
    where recency_rank = 1
)

select * from final
