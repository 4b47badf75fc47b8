-- depends_on: {{ ref('int_run_versions') }}, {{ ref('fct_runs') }}
-- The profiler sections on each run's timeline (def_sections_on_timeline): what each section took
-- between two consecutive profiles (int_run_profile_stretches), laid on the parts of the sessions
-- it overlaps (start-up, kept training, the final tail, redone or lost training), so that
-- fct_run_goodput carves from each part only what was timed in it. Only runs with at least two
-- profiles. Grain: one row per run, session_index, part and section.
-- Incremental by run: a refresh computes the runs that changed and every incomplete run.
{{ config(**runlens.incremental_config('live_run')) }}
with

sessions as (
    select * from {{ ref('fct_run_sessions') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

stretch_sections as (
    select * from {{ ref('int_run_profile_stretches') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

parts as (
    -- the parts of each session a section can be timed in (no process runs while down, and a
    -- stalled run's silence is nobody's)
    select
        run_id,
        session_index,
        'start_up' as part,
        started_at,
        training_started_at as ended_at
    from sessions
    union all
    select
        run_id,
        session_index,
        'kept' as part,
        training_started_at as started_at,
        coalesce(tail_started_at, kept_until_at) as ended_at
    from sessions
    union all
    select
        run_id,
        session_index,
        'final_tail' as part,
        tail_started_at as started_at,
        kept_until_at as ended_at
    from sessions
    where tail_started_at is not null
    union all
    select
        run_id,
        session_index,
        case when lost_seconds > 0 then 'lost' else 'redone' end as part,
        kept_until_at as started_at,
        active_ended_at as ended_at
    from sessions
),

stretches as (
    select distinct
        stretch_sections.run_id,
        stretch_sections.profile_index,
        stretch_sections.stretch_started_at,
        stretch_sections.stretch_ended_at
    from stretch_sections
    where stretch_sections.is_on_timeline and stretch_sections.stretch_seconds > 0
),

stretch_parts as (
    select
        stretches.run_id,
        stretches.profile_index,
        parts.session_index,
        parts.part,
        {{ runlens.seconds_between(
            'case when stretches.stretch_started_at > parts.started_at'
            ~ ' then stretches.stretch_started_at else parts.started_at end',
            'case when stretches.stretch_ended_at < parts.ended_at'
            ~ ' then stretches.stretch_ended_at else parts.ended_at end'
        ) }} as overlap_seconds
    from stretches
    inner join parts
        on stretches.run_id = parts.run_id
        and stretches.stretch_started_at < parts.ended_at
        and stretches.stretch_ended_at > parts.started_at
),

stretch_totals as (
    -- how much of each stretch lies in start-up, and in the parts that train
    select
        run_id,
        profile_index,
        sum(case when part = 'start_up' then overlap_seconds else 0 end) as start_up_seconds,
        sum(case when part != 'start_up' then overlap_seconds else 0 end) as training_seconds,
        sum(overlap_seconds) as all_seconds
    from stretch_parts
    group by run_id, profile_index
),

part_weights as (
    -- a restore happens in start-up, everything else while the run trains: each part's share of
    -- its stretch's sections of either kind is its overlap over the stretch's time in parts of that
    -- kind (over all the stretch's parts when it overlaps none of that kind)
    select
        stretch_parts.run_id,
        stretch_parts.profile_index,
        stretch_parts.session_index,
        stretch_parts.part,
        case
            when stretch_totals.start_up_seconds = 0 then stretch_parts.overlap_seconds / stretch_totals.all_seconds
            when stretch_parts.part = 'start_up' then stretch_parts.overlap_seconds / stretch_totals.start_up_seconds
            else 0
        end as restore_weight,
        case
            when stretch_totals.training_seconds = 0 then stretch_parts.overlap_seconds / stretch_totals.all_seconds
            when stretch_parts.part != 'start_up' then stretch_parts.overlap_seconds / stretch_totals.training_seconds
            else 0
        end as training_weight
    from stretch_parts
    inner join stretch_totals
        on stretch_parts.run_id = stretch_totals.run_id and stretch_parts.profile_index = stretch_totals.profile_index
    where stretch_totals.all_seconds > 0
),

{{ runlens.goodput_section_bucket_ctes('stretch_sections') }},

weighted as (
    select
        part_weights.run_id,
        part_weights.session_index,
        part_weights.part,
        stretch_sections.section,
        section_bucket_of.bucket,
        stretch_sections.seconds * case
            when section_bucket_of.bucket = 'checkpoint_restore' then part_weights.restore_weight
            else part_weights.training_weight
        end as seconds
    from part_weights
    inner join stretch_sections
        on part_weights.run_id = stretch_sections.run_id
        and part_weights.profile_index = stretch_sections.profile_index
    left join section_bucket_of on stretch_sections.section = section_bucket_of.section
    where
        case
            when section_bucket_of.bucket = 'checkpoint_restore' then part_weights.restore_weight
            else part_weights.training_weight
        end > 0
),

final as (
    select
        weighted.run_id,
        sessions.collection,
        sessions.task,
        weighted.session_index,
        weighted.part,
        weighted.section,
        max(weighted.bucket) as bucket,
        {{ runlens.whole_microseconds('sum(weighted.seconds)') }} as seconds,
        {{ runlens.build_started_at() }} as computed_at
    from weighted
    inner join sessions
        on weighted.run_id = sessions.run_id and weighted.session_index = sessions.session_index
    group by
        weighted.run_id, sessions.collection, sessions.task, weighted.session_index, weighted.part, weighted.section
)

select * from final
