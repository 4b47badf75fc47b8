-- In each profiled step of a run with several ranks, when each rank launched its first collective,
-- how long it then waited for the last rank to launch its own, and which rank was last: the
-- straggling rank of the step (def_step_collectives).
-- Grain: one row per run with several ranks, step number and rank.
with

steps as (
    select * from {{ ref('fct_run_steps') }}
    where step_number is not null
),

traces as (
    select * from {{ ref('int_trace_runs') }}
),

collective_events as (
    select
        file_path,
        step_label,
        coalesce(launch_start_us, start_us) as launch_us
    from {{ ref('int_trace_events') }}
    where
        step_label is not null
        and (
            (is_gpu_event and gpu_work_type = 'communication' and launch_start_us is not null)
            or (
                not is_gpu_event
                and (
                    event_name like 'nccl:%'
                    or event_name like 'gloo:%'
                    or event_name like 'c10d::%'
                    or event_name = 'record_param_comms'
                )
            )
        )
),

first_launches as (
    select
        steps.run_id,
        steps.collection,
        steps.task,
        steps.step_number,
        steps.rank,
        min(steps.started_at) as step_started_at,
        -- microseconds since the Unix epoch: the ranks' traces count from their own bases
        min(traces.base_time_ns / 1e3 + collective_events.launch_us) as launch_epoch_us
    from steps
    inner join traces
        on steps.file_path = traces.file_path
    inner join collective_events
        on steps.file_path = collective_events.file_path
        and steps.step_label = collective_events.step_label
    group by steps.run_id, steps.collection, steps.task, steps.step_number, steps.rank
),

compared as (
    select
        *,
        count(*) over (partition by run_id, step_number) as ranks_launched,
        min(launch_epoch_us) over (partition by run_id, step_number) as first_epoch_us,
        max(launch_epoch_us) over (partition by run_id, step_number) as last_epoch_us,
        row_number() over (
            partition by run_id, step_number order by launch_epoch_us desc, rank asc
        ) as from_last
    from first_launches
),

stragglers as (
    select
        run_id,
        step_number,
        rank as straggling_rank
    from compared
    where from_last = 1
),

final as (
    select
        compared.run_id,
        compared.collection,
        compared.task,
        compared.step_number,
        compared.rank,
        compared.step_started_at,
        compared.ranks_launched,
        (compared.launch_epoch_us - compared.first_epoch_us) / 1e6 as launch_after_first_seconds,
        (compared.last_epoch_us - compared.launch_epoch_us) / 1e6 as waited_seconds,
        stragglers.straggling_rank,
        compared.from_last = 1 as is_straggling_rank
    from compared
    inner join stragglers
        on compared.run_id = stragglers.run_id
        and compared.step_number = stragglers.step_number
    where compared.ranks_launched >= 2
)

select * from final
