-- depends_on: {{ ref('int_run_versions') }}
-- Each run's wall time, every second in one goodput bucket (def_goodput): its sessions on one
-- timeline (fct_run_sessions) give start-up, downtime, redone progress and the final tail; the
-- profiler sections and the wait for the slowest rank are then carved from the training time left.
-- Grain: one row per run with a collection and a run_start (clock skew aside). Incremental by run:
-- a refresh computes the runs that changed and every incomplete run (macros/run_versions.sql).
{%- set seconds = runlens.seconds_between %}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where
        collection is not null
        and started_at is not null
        and exclusion_reason is distinct from 'clock_skew'
        and {{ runlens.is_run_to_compute_or_live('run_id') }}
),

live_runs as (
    select * from {{ ref('fct_live_runs') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

sessions as (
    select * from {{ ref('fct_run_sessions') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

profile_sections as (
    select * from {{ ref('fct_run_profile_sections') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

section_buckets as (
    {{ runlens.goodput_section_buckets() }}
),

distributed_runs as (
    select * from {{ ref('fct_distributed_runs') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

resources as (
    select * from {{ ref('int_run_resources') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

timeline as (
    select
        run_id,
        min(started_at) as started_at,
        max(ended_at) as ended_at,
        count(*) as sessions,
        sum(case when train_started_at is null then 1 else 0 end) as unmeasured_start_ups,
        sum(case when is_restore_inferred then 1 else 0 end) as inferred_restores,
        sum(start_up_seconds) as start_up_seconds,
        sum(redone_seconds) as redone_seconds,
        sum(down_seconds) as down_seconds,
        sum(final_tail_seconds) as final_tail_seconds,
        sum(unmeasured_start_up_seconds) as unmeasured_start_up_seconds
    from sessions
    group by run_id
),

section_names as (
    -- `unattributed` is the profile's time in no section (fct_run_profile_sections), never a bucket's
    select distinct section from profile_sections
    where section != 'unattributed'
),

section_matches as (
    -- each section name's bucket: the var's entries before the seed's, a name before a pattern,
    -- the longest pattern first
    select
        section_names.section,
        section_buckets.bucket,
        row_number() over (
            partition by section_names.section
            order by
                section_buckets.source_rank asc,
                case when section_buckets.section = section_names.section then 0 else 1 end asc,
                length(section_buckets.section) desc,
                section_buckets.section asc
        ) as preference
    from section_names
    inner join section_buckets
        on section_names.section like {{ runlens.section_like_pattern('section_buckets.section') }} escape '!'
),

section_bucket_of as (
    select
        section,
        bucket
    from section_matches
    where preference = 1
),

sections as (
    select
        profile_sections.run_id,
        sum(case when section_bucket_of.bucket = 'training' then profile_sections.seconds end) as training_seconds,
        sum(case when section_bucket_of.bucket = 'checkpoint_restore' then profile_sections.seconds else 0 end)
            as checkpoint_restore_seconds,
        sum(case when section_bucket_of.bucket = 'checkpoint_save' then profile_sections.seconds else 0 end)
            as checkpoint_save_seconds,
        sum(case when section_bucket_of.bucket = 'evaluation' then profile_sections.seconds else 0 end)
            as evaluation_seconds,
        sum(case when section_bucket_of.bucket = 'data_loading' then profile_sections.seconds else 0 end)
            as data_loading_seconds
    from profile_sections
    left join section_bucket_of on profile_sections.section = section_bucket_of.section
    group by profile_sections.run_id
),

measured as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        runs.status,
        live_runs.live_status,
        resources.gpus,
        timeline.started_at,
        timeline.ended_at,
        {{ seconds('timeline.started_at', 'timeline.ended_at') }} as wall_seconds,
        timeline.sessions,
        timeline.unmeasured_start_ups,
        timeline.inferred_restores,
        timeline.unmeasured_start_up_seconds,
        sections.run_id is not null as has_sections,
        sections.training_seconds is not null as has_training_sections,
        distributed_runs.run_id is not null as has_ranks,
        -- a restore timed as a section happened before training began: it is start-up time
        timeline.start_up_seconds as start_up_total_seconds,
        coalesce(sections.checkpoint_restore_seconds, 0) as restore_section_seconds,
        timeline.redone_seconds,
        timeline.down_seconds,
        timeline.final_tail_seconds,
        coalesce(sections.training_seconds, 0) as training_section_seconds,
        coalesce(sections.checkpoint_save_seconds, 0) as save_section_seconds,
        coalesce(sections.evaluation_seconds, 0) as evaluation_section_seconds,
        coalesce(sections.data_loading_seconds, 0) as data_loading_section_seconds,
        coalesce(distributed_runs.lost_to_slowest_seconds, 0) as rank_waiting_measured_seconds
    from runs
    inner join timeline on runs.run_id = timeline.run_id
    left join live_runs on runs.run_id = live_runs.run_id
    left join sections on runs.run_id = sections.run_id
    left join distributed_runs on runs.run_id = distributed_runs.run_id
    left join resources on runs.run_id = resources.run_id
),

training_time as (
    -- what the timeline leaves: the sessions' training time, less redone progress and the tail
    select
        *,
        least(restore_section_seconds, start_up_total_seconds) as checkpoint_restore_seconds,
        {{ runlens.whole_microseconds(
            'wall_seconds - start_up_total_seconds - redone_seconds - down_seconds - final_tail_seconds'
        ) }} as training_time_seconds
    from measured
),

carved as (
    -- the sections and the wait for the slowest rank, each carved from what is left of the
    -- training time in this order, never past it
    select
        *,
        least(save_section_seconds, training_time_seconds) as checkpoint_save_seconds,
        least(evaluation_section_seconds, greatest(training_time_seconds - save_section_seconds, 0))
            as evaluation_seconds,
        least(
            data_loading_section_seconds,
            greatest(training_time_seconds - save_section_seconds - evaluation_section_seconds, 0)
        ) as data_loading_seconds,
        least(
            rank_waiting_measured_seconds,
            greatest(
                training_time_seconds - save_section_seconds - evaluation_section_seconds
                - data_loading_section_seconds,
                0
            )
        ) as rank_waiting_seconds
    from training_time
),

left_over as (
    select
        *,
        {{ runlens.whole_microseconds(
            'training_time_seconds - checkpoint_save_seconds - evaluation_seconds - data_loading_seconds'
            ~ ' - rank_waiting_seconds'
        ) }} as left_seconds
    from carved
),

productive as (
    -- the training sections' seconds, up to what is left; without them, all that is left
    select
        *,
        case
            when has_training_sections and training_section_seconds < left_seconds then training_section_seconds
            else left_seconds
        end as productive_seconds
    from left_over
),

final as (
    select
        run_id,
        collection,
        task,
        status,
        live_status,
        gpus,
        started_at,
        ended_at,
        wall_seconds,
        productive_seconds,
        {{ runlens.whole_microseconds('start_up_total_seconds - checkpoint_restore_seconds') }} as start_up_seconds,
        checkpoint_restore_seconds,
        checkpoint_save_seconds,
        evaluation_seconds,
        data_loading_seconds,
        rank_waiting_seconds,
        down_seconds,
        redone_seconds,
        final_tail_seconds,
        {{ runlens.whole_microseconds('left_seconds - productive_seconds') }} as unattributed_seconds,
        case when wall_seconds > 0 then productive_seconds / wall_seconds end as goodput,
        gpus * wall_seconds / 3600 as gpu_hours,
        cast(sessions as {{ dbt.type_bigint() }}) as sessions,
        cast(unmeasured_start_ups as {{ dbt.type_bigint() }}) as unmeasured_start_ups,
        unmeasured_start_up_seconds,
        cast(inferred_restores as {{ dbt.type_bigint() }}) as inferred_restores,
        has_sections,
        has_training_sections,
        has_ranks,
        {{ runlens.build_started_at() }} as computed_at
    from productive
)

select * from final
