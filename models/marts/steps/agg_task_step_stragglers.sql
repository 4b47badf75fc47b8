-- Which rank held each task's profiled steps, in runs of several ranks (def_step_collectives): the
-- rank that was the step's straggling rank in the most steps matched across ranks (ties: the one
-- the other ranks waited for longest, then the lowest), and what the others waited for it.
-- Grain: one row per collection and task with a step matched across ranks.
with

collectives as (
    select * from {{ ref('fct_run_step_rank_collectives') }}
    where collection is not null
),

step_waits as (
    select
        run_id,
        collection,
        task,
        step_number,
        max(straggling_rank) as straggling_rank,
        max(ranks_launched) as ranks_launched,
        sum(waited_seconds) as waited_seconds
    from collectives
    group by run_id, collection, task, step_number
),

task_steps as (
    select
        collection,
        task,
        count(distinct run_id) as runs,
        count(*) as matched_steps,
        max(ranks_launched) as max_ranks
    from step_waits
    group by collection, task
),

by_rank as (
    select
        collection,
        task,
        straggling_rank,
        count(*) as held_steps,
        sum(waited_seconds) as waited_seconds
    from step_waits
    group by collection, task, straggling_rank
),

ranked as (
    select
        *,
        row_number() over (
            partition by collection, task order by held_steps desc, waited_seconds desc, straggling_rank asc
        ) as preference
    from by_rank
),

final as (
    select
        task_steps.collection,
        task_steps.task,
        task_steps.runs,
        task_steps.max_ranks,
        task_steps.matched_steps,
        ranked.straggling_rank,
        ranked.held_steps,
        cast(ranked.held_steps as {{ var('runlens_types')[target.type].double }})
        / task_steps.matched_steps as held_share,
        ranked.waited_seconds / ranked.held_steps as mean_waited_seconds
    from task_steps
    inner join ranked
        on task_steps.collection = ranked.collection
        and task_steps.task = ranked.task
    where ranked.preference = 1
)

select * from final
