-- depends_on: {{ ref('int_run_versions') }}
-- Each run's epochs summed up: how many, the first against the median of the later ones
-- (def_first_epoch_excess). Grain: one row per run with at least one epoch_end marker.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

epochs as (
    select * from {{ ref('fct_run_epochs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

epoch_counts as (
    select
        run_id,
        count(*) as epoch_count,
        avg(active_seconds) as mean_epoch_seconds,
        max(case when epoch_index = 1 then active_seconds end) as first_epoch_seconds
    from epochs
    group by run_id
),

later_epochs as (
    select
        run_id,
        {{ runlens.median('active_seconds') }} as later_epoch_median_seconds
    from epochs
    where epoch_index > 1
    group by run_id
),

final as (
    select
        epoch_counts.run_id,
        runs.collection,
        runs.task,
        runs.is_analyzed,
        epoch_counts.epoch_count,
        epoch_counts.mean_epoch_seconds,
        epoch_counts.first_epoch_seconds,
        later_epochs.later_epoch_median_seconds,
        epoch_counts.first_epoch_seconds - later_epochs.later_epoch_median_seconds as first_epoch_excess_seconds,
        case
            when later_epochs.later_epoch_median_seconds > 0
                then epoch_counts.first_epoch_seconds / later_epochs.later_epoch_median_seconds
        end as first_epoch_ratio,
        runs.tail_seconds = 0 as ends_at_final_epoch_end,
        {{ runlens.build_started_at() }} as computed_at
    from epoch_counts
    inner join runs on epoch_counts.run_id = runs.run_id
    left join later_epochs on epoch_counts.run_id = later_epochs.run_id
)

select * from final
