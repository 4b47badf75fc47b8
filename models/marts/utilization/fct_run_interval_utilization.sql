-- depends_on: {{ ref('int_run_versions') }}
-- How busy each interval of a run kept its GPUs (def_utilization): the run's held sample spans
-- (int_run_utilization_spans) laid on the interval's active time (its seconds less its downtime),
-- time-weighted; the GPU-hours the interval held and those it left idle (def_idle_gpu_hours).
-- Every interval of fct_run_intervals has a row; a run without GPU samples has NULL figures, and an
-- interval with fewer than var utilization_min_samples x GPUs samples in all is not measured (NULL means
-- and idle GPU-hours). The rule is macros/utilization.sql's stretch_utilization_ctes.
-- Grain: one row per run and interval_index, as fct_run_intervals.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{{ config(**runlens.incremental_config('run')) }}
with

intervals as {{ runlens.streamed_cte() }} (
    select * from {{ ref('fct_run_intervals') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

interval_kinds as (
    select * from {{ ref('fct_run_interval_kinds') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

runs as (
    select * from {{ ref('fct_runs') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

sampled_runs as (
    -- the runs with any accepted sample, GPU or host: the others' intervals have nothing to measure
    select distinct run_id from samples
),

active_intervals as (
    -- an interval's active time: from its opening marker to its closing one, less the downtime
    -- before a restart; only the sampled runs' intervals are laid against their samples
    select
        intervals.run_id,
        intervals.interval_index,
        intervals.started_at,
        {{ runlens.add_seconds('intervals.ended_at', '-intervals.down_seconds') }} as active_ended_at,
        intervals.seconds - intervals.down_seconds as active_seconds
    from intervals
    inner join sampled_runs on intervals.run_id = sampled_runs.run_id
),

{{ runlens.stretch_utilization_ctes('active_intervals', ['interval_index']) }},

final as (
    select
        intervals.run_id,
        intervals.collection,
        intervals.task,
        intervals.interval_index,
        intervals.label,
        intervals.position_index,
        interval_kinds.interval_kind,
        -- the part of the run's wall time the interval is in (def_wall_time_parts)
        case
            when intervals.is_pre_epoch and intervals.interval_index = 1 then 'opening_block'
            when intervals.is_pre_epoch then 'later_windows'
            when runs.tail_seconds is not null then 'final_tail'
            else 'other'
        end as wall_time_part,
        intervals.started_at,
        intervals.ended_at,
        intervals.seconds - intervals.down_seconds as active_seconds,
        stretch_utilization.gpus,
        stretch_utilization.gpus_source,
        -- a run without samples: none inside, not measured, every figure NULL
        coalesce(stretch_utilization.gpu_samples, 0) as gpu_samples,
        coalesce(stretch_utilization.host_samples, 0) as host_samples,
        coalesce(stretch_utilization.is_measured, false) as is_measured,
        stretch_utilization.sample_coverage,
        stretch_utilization.mean_gpu_utilization_pct,
        stretch_utilization.mean_gpu_memory_used_mib,
        stretch_utilization.mean_gpu_power_watts,
        stretch_utilization.mean_cpu_utilization_pct,
        stretch_utilization.gpu_hours,
        stretch_utilization.measured_gpu_hours,
        stretch_utilization.idle_gpu_hours,
        {{ runlens.build_started_at() }} as computed_at
    from intervals
    left join stretch_utilization
        on intervals.run_id = stretch_utilization.run_id
        and intervals.interval_index = stretch_utilization.interval_index
    inner join interval_kinds
        on intervals.run_id = interval_kinds.run_id and intervals.interval_index = interval_kinds.interval_index
    inner join runs on intervals.run_id = runs.run_id
)

select * from final
