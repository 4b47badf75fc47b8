-- Each run's profiled steps in one row, over all its ranks: how many, how long, and the shares
-- of data loading and of the GPU's time (def_step_summaries). NULL GPU shares for a run whose
-- traces hold no GPU events. Grain: one row per run with a profiled step.
with

steps as (
    select * from {{ ref('fct_run_steps') }}
),

final as (
    {{ runlens.step_rollup('steps', ['run_id', 'collection', 'task']) }}
)

select * from final
