-- Epoch statistics per collection and task over analyzed event-log runs with at least one epoch_end
-- (def_epochs, def_first_epoch_excess, def_percentiles). Grain: one row per collection and task with
-- such a run.
with

runs as (
    select * from {{ ref('fct_runs') }}
    where is_analyzed and measurement_source = 'event_log'
),

summaries as (
    select * from {{ ref('fct_run_epoch_summaries') }}
),

epochs as (
    select * from {{ ref('fct_run_epochs') }}
),

analyzed_epochs as (
    select
        runs.collection,
        runs.task,
        epochs.active_seconds
    from epochs
    inner join runs on epochs.run_id = runs.run_id
),

epoch_stats as (
    select
        collection,
        task,
        count(*) as epochs,
        avg(active_seconds) as mean_epoch_seconds,
        {{ runlens.median('active_seconds') }} as p50_epoch_seconds,
        {{ runlens.percentile('active_seconds', 0.9) }} as p90_epoch_seconds,
        max(active_seconds) as max_epoch_seconds
    from analyzed_epochs
    group by collection, task
),

run_stats as (
    select
        runs.collection,
        runs.task,
        count(*) as runs_with_epochs,
        avg(cast(summaries.epoch_count as {{ runlens.type_double() }})) as mean_epochs_per_run,
        {{ runlens.median('summaries.epoch_count') }} as median_epochs_per_run,
        avg(summaries.first_epoch_seconds) as mean_first_epoch_seconds,
        avg(summaries.later_epoch_median_seconds) as mean_later_epoch_median_seconds,
        avg(summaries.first_epoch_excess_seconds) as mean_first_epoch_excess_seconds,
        avg(summaries.first_epoch_ratio) as mean_first_epoch_ratio,
        count(*) filter (where summaries.ends_at_final_epoch_end) as runs_ending_at_final_epoch_end
    from summaries
    inner join runs on summaries.run_id = runs.run_id
    group by runs.collection, runs.task
),

final as (
    select
        run_stats.collection,
        run_stats.task,
        run_stats.runs_with_epochs,
        run_stats.runs_ending_at_final_epoch_end,
        epoch_stats.epochs,
        run_stats.mean_epochs_per_run,
        run_stats.median_epochs_per_run,
        epoch_stats.mean_epoch_seconds,
        epoch_stats.p50_epoch_seconds,
        epoch_stats.p90_epoch_seconds,
        epoch_stats.max_epoch_seconds,
        run_stats.mean_first_epoch_seconds,
        run_stats.mean_later_epoch_median_seconds,
        run_stats.mean_first_epoch_excess_seconds,
        run_stats.mean_first_epoch_ratio
    from run_stats
    inner join epoch_stats
        on run_stats.collection = epoch_stats.collection
        and run_stats.task = epoch_stats.task
)

select * from final
