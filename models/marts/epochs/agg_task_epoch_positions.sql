-- Epoch durations at each epoch number, over analyzed event-log runs (def_epochs).
-- Grain: one row per collection, task and epoch_index.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and measurement_source = 'event_log'
),

epochs as (
    select * from {{ ref('fct_run_epochs') }}
),

final as (
    select
        runs.collection,
        runs.task,
        epochs.epoch_index,
        count(*) as runs,
        avg(epochs.active_seconds) as mean_seconds,
        min(epochs.active_seconds) as min_seconds,
        max(epochs.active_seconds) as max_seconds
    from epochs
    inner join runs on epochs.run_id = runs.run_id
    group by runs.collection, runs.task, epochs.epoch_index
)

select * from final
