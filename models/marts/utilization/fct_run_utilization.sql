-- depends_on: {{ ref('int_run_versions') }}
-- How busy each run kept its GPUs (def_utilization), from its intervals
-- (fct_run_interval_utilization): the GPU-hours it held, those measured, its mean GPU utilization
-- over the measured ones (weighted by GPU-hours) and the GPU-hours it left idle
-- (def_idle_gpu_hours), with its samples: how many, and how many were set aside (taken before
-- its first run_start, or more than var utilization_sample_grace_seconds after its end).
-- Grain: one row per run with at least one accepted sample.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
{%- set grace = var('utilization_sample_grace_seconds') %}
with

samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

interval_utilization as (
    select * from {{ ref('fct_run_interval_utilization') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

sample_counts as (
    select
        samples.run_id,
        count(*) as samples,
        count(case when samples.gpu_index is not null then 1 end) as gpu_samples,
        count(case when samples.gpu_index is null then 1 end) as host_samples,
        count(case when samples.sampled_at < runs.started_at then 1 end) as samples_before_start,
        count(
            case when samples.sampled_at > {{ runlens.add_seconds('runs.ended_at', grace) }} then 1 end
        ) as samples_after_end,
        min(samples.sampled_at) as first_sampled_at,
        max(samples.sampled_at) as last_sampled_at,
        max(samples.process_memory_used) as peak_process_memory_used_mib,
        max(samples.gpu_memory_used) as peak_gpu_memory_used_mib
    from samples
    inner join runs on samples.run_id = runs.run_id
    group by samples.run_id
),

interval_sums as (
    select
        run_id,
        max(gpus) as gpus,
        max(gpus_source) as gpus_source,
        sum(gpu_hours) as gpu_hours,
        sum(measured_gpu_hours) as measured_gpu_hours,
        sum(mean_gpu_utilization_pct * measured_gpu_hours) as utilization_gpu_hours,
        sum(idle_gpu_hours) as idle_gpu_hours,
        count(*) as intervals,
        count(case when is_measured then 1 end) as measured_intervals
    from interval_utilization
    group by run_id
),

final as (
    select
        runs.run_id,
        runs.collection,
        runs.task,
        sample_counts.samples,
        sample_counts.gpu_samples,
        sample_counts.host_samples,
        sample_counts.samples_before_start,
        sample_counts.samples_after_end,
        sample_counts.first_sampled_at,
        sample_counts.last_sampled_at,
        interval_sums.gpus,
        interval_sums.gpus_source,
        coalesce(interval_sums.intervals, 0) as intervals,
        coalesce(interval_sums.measured_intervals, 0) as measured_intervals,
        interval_sums.gpu_hours,
        coalesce(interval_sums.measured_gpu_hours, case when interval_sums.gpu_hours is not null then 0 end)
            as measured_gpu_hours,
        case
            when interval_sums.measured_gpu_hours > 0
                then
                    {{ runlens.percent_mean(
                        'interval_sums.utilization_gpu_hours', 'interval_sums.measured_gpu_hours'
                    ) }}
        end as mean_gpu_utilization_pct,
        interval_sums.idle_gpu_hours,
        sample_counts.peak_gpu_memory_used_mib,
        sample_counts.peak_process_memory_used_mib,
        {{ runlens.build_started_at() }} as computed_at
    from sample_counts
    inner join runs on sample_counts.run_id = runs.run_id
    left join interval_sums on sample_counts.run_id = interval_sums.run_id
)

select * from final
