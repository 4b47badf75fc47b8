-- depends_on: {{ ref('int_run_versions') }}
-- The sessions of each run (def_sessions): a session runs from one of the run's run_start markers
-- to its last event before the next; with when its training began (its train_start), the step
-- that train_start names, and, for a resumed session, the checkpoint it went back to. The goodput
-- breakdown (fct_run_goodput) lays these on one timeline. Grain: one row per run and
-- session_index.
with

markers as {{ runlens.streamed_cte() }} (
    select * from {{ ref('int_run_markers') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

events as (
    select * from {{ ref('int_event_occurrences') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

checkpoints as (
    select
        run_id,
        event_at,
        step
    from markers
    where event_type = 'checkpoint'
),

session_starts as (
    select
        run_id,
        row_number() over (partition by run_id order by marker_index) as session_index,
        event_at as started_at
    from markers
    where event_type = 'run_start'
),

sessions as (
    select
        session_starts.run_id,
        session_starts.session_index,
        session_starts.started_at,
        next_starts.started_at as next_started_at
    from session_starts
    left join session_starts as next_starts
        on session_starts.run_id = next_starts.run_id
        and session_starts.session_index + 1 = next_starts.session_index
),

session_events as (
    -- every event of the run (of the six types, any rank) from the session's run_start to the next
    select
        sessions.run_id,
        sessions.session_index,
        events.rank,
        events.event_type,
        events.event_at,
        events.step
    from sessions
    inner join events
        on sessions.run_id = events.run_id
        and sessions.started_at <= events.event_at
        and (sessions.next_started_at is null or sessions.next_started_at > events.event_at)
),

last_events as (
    select
        run_id,
        session_index,
        max(event_at) as last_event_at
    from session_events
    group by run_id, session_index
),

rank_train_starts as (
    -- each rank's first train_start of the session
    select
        run_id,
        session_index,
        rank,
        min(event_at) as train_started_at
    from session_events
    where event_type = 'train_start'
    group by run_id, session_index, rank
),

train_starts as (
    -- training begins when its last rank begins (a step waits for every rank), from the step
    -- that train_start names
    select
        rank_train_starts.run_id,
        rank_train_starts.session_index,
        max(rank_train_starts.train_started_at) as train_started_at,
        max(session_events.step) as train_start_step
    from rank_train_starts
    inner join session_events
        on rank_train_starts.run_id = session_events.run_id
        and rank_train_starts.session_index = session_events.session_index
        and rank_train_starts.rank = session_events.rank
        and rank_train_starts.train_started_at = session_events.event_at
        and session_events.event_type = 'train_start'
    group by rank_train_starts.run_id, rank_train_starts.session_index
),

restore_candidates as (
    -- the checkpoints a resumed session may have gone back to: those before its run_start, and
    -- at or below the step its train_start names when it names one
    select
        sessions.run_id,
        sessions.session_index,
        checkpoints.event_at,
        checkpoints.step,
        row_number() over (
            partition by sessions.run_id, sessions.session_index
            order by checkpoints.event_at desc, checkpoints.step desc
        ) as recency
    from sessions
    left join train_starts
        on sessions.run_id = train_starts.run_id and sessions.session_index = train_starts.session_index
    inner join checkpoints
        on sessions.run_id = checkpoints.run_id
        and sessions.started_at > checkpoints.event_at
        and (train_starts.train_start_step is null or train_starts.train_start_step >= checkpoints.step)
    where sessions.session_index > 1
),

restored as (
    select
        run_id,
        session_index,
        event_at as restored_checkpoint_at,
        step as restored_step
    from restore_candidates
    where recency = 1
),

first_markers as (
    -- the session's first marker after its run_start: its start-up, when no train_start says
    -- where it ended, lies before it
    select
        sessions.run_id,
        sessions.session_index,
        min(markers.event_at) as first_marker_at
    from sessions
    inner join markers
        on sessions.run_id = markers.run_id
        and sessions.started_at <= markers.event_at
        and (sessions.next_started_at is null or sessions.next_started_at > markers.event_at)
    where markers.event_type != 'run_start'
    group by sessions.run_id, sessions.session_index
),

last_checkpoints as (
    -- the latest checkpoint before each session's end: where a run that fails or is abandoned in
    -- that session could go back to
    select
        sessions.run_id,
        sessions.session_index,
        max(checkpoints.event_at) as last_checkpoint_at
    from sessions
    inner join checkpoints
        on sessions.run_id = checkpoints.run_id
        and (sessions.next_started_at is null or sessions.next_started_at > checkpoints.event_at)
    group by sessions.run_id, sessions.session_index
),

final as (
    select
        sessions.run_id,
        cast(sessions.session_index as {{ dbt.type_bigint() }}) as session_index,
        sessions.started_at,
        train_starts.train_started_at,
        train_starts.train_start_step,
        last_events.last_event_at,
        first_markers.first_marker_at,
        sessions.next_started_at,
        restored.restored_checkpoint_at,
        restored.restored_step,
        -- a resume's checkpoint is inferred unless its train_start named its step (0 without a
        -- checkpoint: training began again from the start; def_inferred_restore)
        case
            when sessions.session_index = 1 then false
            when train_starts.train_start_step is null then true
            when restored.restored_step = train_starts.train_start_step then false
            when restored.restored_step is null and train_starts.train_start_step = 0 then false
            else true
        end as is_restore_inferred,
        last_checkpoints.last_checkpoint_at,
        {{ runlens.build_started_at() }} as computed_at
    from sessions
    left join last_events
        on sessions.run_id = last_events.run_id and sessions.session_index = last_events.session_index
    left join train_starts
        on sessions.run_id = train_starts.run_id and sessions.session_index = train_starts.session_index
    left join first_markers
        on sessions.run_id = first_markers.run_id and sessions.session_index = first_markers.session_index
    left join restored
        on sessions.run_id = restored.run_id and sessions.session_index = restored.session_index
    left join last_checkpoints
        on sessions.run_id = last_checkpoints.run_id and sessions.session_index = last_checkpoints.session_index
)

select * from final
