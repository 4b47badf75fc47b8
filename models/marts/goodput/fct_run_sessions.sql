-- depends_on: {{ ref('int_run_versions') }}
-- Each session of a run on the run's one timeline (def_sessions, def_goodput): its start-up, the
-- training it kept, what a disruption made it redo, its share of the final tail and the downtime
-- after it. fct_run_goodput sums them per run and carves the sections from the training time.
-- Grain: one row per run (with a collection and a run_start, clock skew aside) and session_index.
-- Incremental by run: a refresh computes the runs that changed and every incomplete run.
{{ config(**runlens.incremental_config('live_run')) }}
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
    select * from {{ ref('fct_run_live_status') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

segments as (
    select * from {{ ref('fct_run_segments') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

sessions as (
    select * from {{ ref('int_run_sessions') }}
    where {{ runlens.is_run_to_compute_or_live('run_id') }}
),

epoch_ends as (
    select * from {{ ref('int_run_markers') }}
    where event_type = 'epoch_end' and {{ runlens.is_run_to_compute_or_live('run_id') }}
),

spans as (
    -- where the run's time ends (fct_run_segments): its final run_end, the as-of time while it
    -- runs, else its last event
    select
        run_id,
        min(started_at) as started_at,
        max(ended_at) as ended_at
    from segments
    group by run_id
),

final_epoch_ends as (
    select
        run_id,
        max(event_at) as final_epoch_end_at
    from epoch_ends
    group by run_id
),

bounded_sessions as (
    -- each session's end: its last event when another session follows, else the run's end (for a
    -- stalled run, the as-of time: its process ran, silent, until then as far as anyone knows);
    -- where its activity ended (a stalled run's last event: its silence is no bucket's training);
    -- and the checkpoint a disruption at that end went back to: the next session's restored one,
    -- or for a run that failed or was abandoned there, its last checkpoint (without one, the
    -- run's start: nothing was kept), whose work after it is lost, not redone
    select
        sessions.run_id,
        sessions.session_index,
        sessions.started_at,
        sessions.next_started_at,
        sessions.train_started_at,
        sessions.first_marker_at,
        sessions.restored_checkpoint_at,
        sessions.restored_step,
        sessions.is_restore_inferred,
        case when sessions.next_started_at is null then spans.ended_at else sessions.last_event_at end as ended_at,
        case
            when sessions.next_started_at is null and live_runs.live_status = 'stalled' then sessions.last_event_at
            when sessions.next_started_at is null then spans.ended_at
            else sessions.last_event_at
        end as active_ended_at,
        sessions.next_started_at is null
        and (runs.status = 'failed' or live_runs.live_status = 'abandoned') as is_lost_at_end,
        case
            when sessions.next_started_at is not null
                then coalesce(next_sessions.restored_checkpoint_at, spans.started_at)
            when runs.status = 'failed' or live_runs.live_status = 'abandoned'
                then coalesce(sessions.last_checkpoint_at, spans.started_at)
        end as disruption_restored_at
    from sessions
    inner join runs on sessions.run_id = runs.run_id
    inner join spans on sessions.run_id = spans.run_id
    left join live_runs on sessions.run_id = live_runs.run_id
    left join sessions as next_sessions
        on sessions.run_id = next_sessions.run_id
        and sessions.session_index + 1 = next_sessions.session_index
),

redone_from as (
    -- training at or after the earliest checkpoint that this session's disruption or a later one
    -- went back to was done again (or lost): the redone progress starts there
    select
        *,
        case
            when train_started_at is null then started_at
            when train_started_at > active_ended_at then active_ended_at
            else train_started_at
        end as training_started_at,
        min(disruption_restored_at) over (
            partition by run_id order by session_index desc rows between unbounded preceding and current row
        ) as earliest_restored_at
    from bounded_sessions
),

session_parts as (
    select
        *,
        case
            when earliest_restored_at < active_ended_at and earliest_restored_at > training_started_at
                then earliest_restored_at
            when earliest_restored_at < active_ended_at then training_started_at
            else active_ended_at
        end as kept_until
    from redone_from
),

session_tails as (
    -- the final tail: the kept training after the run's last epoch_end, when it has a tail
    select
        session_parts.*,
        case
            when runs.tail_seconds is not null and final_epoch_ends.final_epoch_end_at < session_parts.kept_until
                then case
                    when final_epoch_ends.final_epoch_end_at > session_parts.training_started_at
                        then final_epoch_ends.final_epoch_end_at
                    else session_parts.training_started_at
                end
        end as tail_started_at
    from session_parts
    inner join runs on session_parts.run_id = runs.run_id
    left join final_epoch_ends on session_parts.run_id = final_epoch_ends.run_id
),

final as (
    select
        session_parts.run_id,
        runs.collection,
        runs.task,
        session_parts.session_index,
        session_parts.started_at,
        session_parts.train_started_at,
        session_parts.ended_at,
        session_parts.active_ended_at,
        session_parts.next_started_at,
        session_parts.restored_checkpoint_at,
        session_parts.restored_step,
        session_parts.is_restore_inferred,
        session_parts.disruption_restored_at as restore_point_at,
        session_parts.training_started_at,
        session_parts.kept_until as kept_until_at,
        session_parts.tail_started_at,
        {{ seconds('session_parts.started_at', 'session_parts.training_started_at') }} as start_up_seconds,
        case
            when session_parts.is_lost_at_end then 0
            else {{ seconds('session_parts.kept_until', 'session_parts.active_ended_at') }}
        end as redone_seconds,
        case
            when session_parts.is_lost_at_end
                then {{ seconds('session_parts.kept_until', 'session_parts.active_ended_at') }}
            else 0
        end as lost_seconds,
        {{ seconds('session_parts.active_ended_at', 'session_parts.ended_at') }} as silent_seconds,
        case
            when session_parts.next_started_at is not null
                then {{ seconds('session_parts.ended_at', 'session_parts.next_started_at') }}
            else 0
        end as down_seconds,
        case
            when session_parts.tail_started_at is not null
                then {{ seconds('session_parts.tail_started_at', 'session_parts.kept_until') }}
            else 0
        end as final_tail_seconds,
        -- without train_start, the start-up lies in the kept training before the first marker
        case
            when session_parts.train_started_at is null
                then {{ seconds(
                    'session_parts.started_at',
                    'case when session_parts.first_marker_at < session_parts.kept_until'
                    ~ ' then session_parts.first_marker_at else session_parts.kept_until end'
                ) }}
            else 0
        end as unmeasured_start_up_seconds,
        {{ runlens.build_started_at() }} as computed_at
    from session_tails as session_parts
    inner join runs on session_parts.run_id = runs.run_id
)

select * from final
