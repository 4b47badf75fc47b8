-- The profiled steps of each task of a collection, over all its runs and ranks (def_step_summaries).
-- Grain: one row per collection and task with a profiled step.
with

steps as (
    select * from {{ ref('fct_run_steps') }}
),

final as (
    {{ runlens.step_rollup('steps', ['collection', 'task']) }}
)

select * from final
