-- depends_on: {{ ref('int_run_versions') }}
-- Each run's wall time, every second in one goodput bucket (def_goodput): its sessions on one
-- timeline (fct_run_sessions) give start-up, downtime, redone and lost progress, a stalled run's
-- silence and the final tail; the profiler sections (timed in kept training, for a run with several
-- profiles: fct_run_session_sections) and the wait for the slowest rank are then carved from the
-- training time left.
-- Grain: one row per run with a collection and a run_start (clock skew aside). Incremental by run:
-- a refresh computes the runs that changed and every incomplete run (macros/run_versions.sql).
{{ config(**runlens.incremental_config('live_run')) }}
{%- set seconds = runlens.seconds_between %}
with

runs as (
    -- those with sessions (fct_run_sessions: a collection and a run_start, clock skew aside)
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

live_runs as (
    select * from {{ ref('fct_run_live_status') }}
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

session_sections as (
    select * from {{ ref('fct_run_session_sections') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

distributed_runs as (
    select * from {{ ref('fct_run_rank_waiting') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

resources as (
    select * from {{ ref('int_run_resources') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

timings as (
    select * from {{ ref('int_run_timings') }}
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
        {{ runlens.whole_microseconds('sum(start_up_seconds)') }} as start_up_seconds,
        {{ runlens.whole_microseconds('sum(redone_seconds)') }} as redone_seconds,
        {{ runlens.whole_microseconds('sum(lost_seconds)') }} as lost_seconds,
        {{ runlens.whole_microseconds('sum(silent_seconds)') }} as silent_seconds,
        {{ runlens.whole_microseconds('sum(down_seconds)') }} as down_seconds,
        {{ runlens.whole_microseconds('sum(final_tail_seconds)') }} as final_tail_seconds,
        {{ runlens.whole_microseconds('sum(unmeasured_start_up_seconds)') }} as unmeasured_start_up_seconds
    from sessions
    group by run_id
),

{{ runlens.goodput_section_ctes('profile_sections', ['run_id']) }},

timeline_sections as (
    -- a run with several profiles has its sections on its timeline (def_sections_on_timeline):
    -- restores timed in start-up, the rest timed in kept training; what was timed in redone or
    -- lost training or in the final tail is inside those buckets already
    select
        run_id,
        {{ runlens.whole_microseconds(
            "sum(case when part = 'kept' and bucket = 'training' then seconds else 0 end)"
        ) }} as training_seconds,
        {{ runlens.whole_microseconds(
            "sum(case when part = 'start_up' and bucket = 'checkpoint_restore' then seconds else 0 end)"
        ) }} as checkpoint_restore_seconds,
    {%- for bucket in ['checkpoint_save', 'evaluation', 'data_loading'] %}
        {{ runlens.whole_microseconds(
            "sum(case when part = 'kept' and bucket = '" ~ bucket ~ "' then seconds else 0 end)"
        ) }} as {{ bucket }}_seconds{{ ',' if not loop.last }}
    {%- endfor %}
    from session_sections
    group by run_id
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
        timeline_sections.run_id is not null as is_sections_on_timeline,
        distributed_runs.run_id is not null as has_ranks,
        coalesce(timings.tail_seconds is not null or timings.has_training_after_final_epoch_end, false)
            as is_final_tail_measured,
        -- a restore timed as a section happened before training began: it is start-up time
        timeline.start_up_seconds as start_up_total_seconds,
        coalesce(timeline_sections.checkpoint_restore_seconds, sections.checkpoint_restore_seconds, 0)
            as restore_section_seconds,
        timeline.redone_seconds,
        timeline.lost_seconds,
        timeline.silent_seconds,
        timeline.down_seconds,
        timeline.final_tail_seconds,
        coalesce(timeline_sections.training_seconds, sections.training_seconds, 0) as training_section_seconds,
        coalesce(timeline_sections.checkpoint_save_seconds, sections.checkpoint_save_seconds, 0)
            as save_section_seconds,
        coalesce(timeline_sections.evaluation_seconds, sections.evaluation_seconds, 0) as evaluation_section_seconds,
        coalesce(timeline_sections.data_loading_seconds, sections.data_loading_seconds, 0)
            as data_loading_section_seconds,
        coalesce(distributed_runs.lost_to_slowest_seconds, 0) as rank_waiting_measured_seconds
    from runs
    inner join timeline on runs.run_id = timeline.run_id
    left join live_runs on runs.run_id = live_runs.run_id
    left join sections on runs.run_id = sections.run_id
    left join timeline_sections on runs.run_id = timeline_sections.run_id
    left join distributed_runs on runs.run_id = distributed_runs.run_id
    left join resources on runs.run_id = resources.run_id
    left join timings on runs.run_id = timings.run_id
),

{{ runlens.goodput_carving_ctes('measured') }},

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
        {{ runlens.goodput_bucket_columns() }},
        gpus * wall_seconds / 3600 as gpu_hours,
        cast(sessions as {{ dbt.type_bigint() }}) as sessions,
        cast(unmeasured_start_ups as {{ dbt.type_bigint() }}) as unmeasured_start_ups,
        -- an unmeasured start-up hides in the time no measured section took: all that is left
        -- without training sections, the unattributed rest with them
        least(
            unmeasured_start_up_seconds,
            {{ runlens.whole_microseconds(
                'left_seconds - case when has_training_sections then productive_seconds else 0 end'
            ) }}
        ) as unmeasured_start_up_seconds,
        cast(inferred_restores as {{ dbt.type_bigint() }}) as inferred_restores,
        has_sections,
        has_training_sections,
        is_sections_on_timeline,
        has_ranks,
        is_final_tail_measured,
        {{ runlens.build_started_at() }} as computed_at
    from carved_to_productive
)

select * from final
