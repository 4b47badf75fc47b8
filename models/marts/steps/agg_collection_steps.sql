-- The profiled steps of each collection, over all its runs and ranks (def_step_summaries).
-- Grain: one row per collection with a profiled step.
with

steps as (
    select * from {{ ref('fct_run_steps') }}
),

final as (
    {{ runlens.step_rollup('steps', ['collection']) }}
)

select * from final
