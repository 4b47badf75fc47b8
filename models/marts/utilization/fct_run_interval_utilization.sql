-- depends_on: {{ ref('int_run_versions') }}
-- How busy each interval of a run kept its GPUs (def_utilization): the run's GPU samples held over
-- time (each stands for its GPU until the GPU's next sample, at most
-- var utilization_sample_hold_seconds later), laid on the interval's active time (its seconds
-- less its downtime), time-weighted; the GPU-hours the interval held and those it left idle
-- (def_idle_gpu_hours). Every interval of fct_run_intervals has a row; a run without samples has
-- NULL figures, and an interval with fewer than var utilization_min_samples samples per GPU is not
-- measured (NULL means and idle GPU-hours).
-- Grain: one row per run and interval_index, as fct_run_intervals.
-- Incremental by run (macros/run_versions.sql): a refresh computes the runs whose lines changed.
{%- set hold = var('utilization_sample_hold_seconds') %}
{%- set min_samples = var('utilization_min_samples') %}
with

samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

intervals as (
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

resources as (
    select * from {{ ref('int_run_resources') }}
    where {{ runlens.is_run_to_compute('run_id') }}
),

held as (
    -- each sample stands for its device (a GPU, or the host) until the device's next sample, at
    -- most `hold` seconds later
    select
        run_id,
        gpu_index,
        sampled_at,
        gpu_utilization,
        gpu_memory_used,
        gpu_power,
        cpu_utilization,
        process_memory_used,
        lead(sampled_at) over (partition by run_id, rank, host, gpu_index order by sampled_at) as next_sampled_at
    from samples
),

spans as (
    select
        *,
        case
            when next_sampled_at < {{ runlens.add_seconds('sampled_at', hold) }} then next_sampled_at
            else {{ runlens.add_seconds('sampled_at', hold) }}
        end as held_until
    from held
),

sampled_gpus as (
    -- the GPUs the run's samples name: a GPU index per rank and host
    select
        run_id,
        count(*) as sampled_gpus
    from (
        select distinct
            run_id,
            rank,
            host,
            gpu_index
        from samples
        where gpu_index is not null
    ) as devices
    group by run_id
),

run_gpus as (
    -- what the run says it uses, else what its samples show
    select
        sampled_gpus.run_id,
        sampled_gpus.sampled_gpus,
        coalesce(resources.gpus, sampled_gpus.sampled_gpus) as gpus,
        case when resources.gpus is not null then 'resources' else 'samples' end as gpus_source
    from sampled_gpus
    left join resources on sampled_gpus.run_id = resources.run_id
),

active_intervals as (
    -- an interval's active time: from its opening marker to its closing one, less the downtime
    -- before a restart
    select
        run_id,
        interval_index,
        started_at,
        {{ runlens.add_seconds('ended_at', '-down_seconds') }} as active_ended_at,
        seconds - down_seconds as active_seconds
    from intervals
),

span_overlaps as (
    select
        active_intervals.run_id,
        active_intervals.interval_index,
        spans.gpu_index,
        spans.gpu_utilization,
        spans.gpu_memory_used,
        spans.gpu_power,
        spans.cpu_utilization,
        spans.process_memory_used,
        spans.sampled_at >= active_intervals.started_at and spans.sampled_at < active_intervals.active_ended_at
            as is_inside,
        {{ runlens.seconds_between(
            'case when spans.sampled_at > active_intervals.started_at'
            ~ ' then spans.sampled_at else active_intervals.started_at end',
            'case when spans.held_until < active_intervals.active_ended_at'
            ~ ' then spans.held_until else active_intervals.active_ended_at end'
        ) }} as overlap_seconds
    from active_intervals
    inner join spans
        on active_intervals.run_id = spans.run_id
        and active_intervals.active_ended_at > spans.sampled_at
        and active_intervals.started_at < spans.held_until
),

interval_sums as (
    select
        run_id,
        interval_index,
        count(case when is_inside and gpu_index is not null then 1 end) as gpu_samples,
        count(case when is_inside and gpu_utilization is not null then 1 end) as gpu_utilization_samples,
        count(case when is_inside and gpu_index is null then 1 end) as host_samples,
        sum(case when gpu_utilization is not null then overlap_seconds end) as utilization_gpu_seconds,
        sum(gpu_utilization * overlap_seconds) as utilization_integral,
        sum(case when gpu_memory_used is not null then overlap_seconds end) as memory_gpu_seconds,
        sum(gpu_memory_used * overlap_seconds) as memory_integral,
        sum(case when gpu_power is not null then overlap_seconds end) as power_gpu_seconds,
        sum(gpu_power * overlap_seconds) as power_integral,
        count(case when is_inside and cpu_utilization is not null then 1 end) as cpu_samples,
        sum(case when cpu_utilization is not null then overlap_seconds end) as cpu_seconds,
        sum(cpu_utilization * overlap_seconds) as cpu_integral
    from span_overlaps
    group by run_id, interval_index
),

figures as (
    select
        intervals.run_id,
        intervals.interval_index,
        active_intervals.active_seconds,
        run_gpus.gpus,
        run_gpus.gpus_source,
        run_gpus.sampled_gpus,
        run_gpus.run_id is not null as has_gpu_samples,
        coalesce(interval_sums.gpu_samples, 0) as gpu_samples,
        coalesce(interval_sums.host_samples, 0) as host_samples,
        coalesce(interval_sums.gpu_utilization_samples, 0)
        >= {{ min_samples }} * coalesce(run_gpus.sampled_gpus, 0) and run_gpus.run_id is not null as is_measured,
        interval_sums.utilization_gpu_seconds,
        interval_sums.utilization_integral,
        interval_sums.memory_gpu_seconds,
        interval_sums.memory_integral,
        interval_sums.power_gpu_seconds,
        interval_sums.power_integral,
        interval_sums.cpu_samples,
        interval_sums.cpu_seconds,
        interval_sums.cpu_integral
    from intervals
    inner join active_intervals
        on intervals.run_id = active_intervals.run_id and intervals.interval_index = active_intervals.interval_index
    left join run_gpus on intervals.run_id = run_gpus.run_id
    left join interval_sums
        on intervals.run_id = interval_sums.run_id and intervals.interval_index = interval_sums.interval_index
),

means as (
    select
        *,
        case
            when is_measured and utilization_gpu_seconds > 0 then utilization_integral / utilization_gpu_seconds
        end as mean_gpu_utilization_pct,
        case when is_measured and memory_gpu_seconds > 0 then memory_integral / memory_gpu_seconds end
            as mean_gpu_memory_used_mib,
        case when is_measured and power_gpu_seconds > 0 then power_integral / power_gpu_seconds end
            as mean_gpu_power_watts,
        case when cpu_samples >= {{ min_samples }} and cpu_seconds > 0 then cpu_integral / cpu_seconds end
            as mean_cpu_utilization_pct,
        case when has_gpu_samples then active_seconds * gpus / 3600.0 end as gpu_hours
    from figures
),

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
        means.active_seconds,
        means.gpus,
        means.gpus_source,
        means.gpu_samples,
        means.host_samples,
        means.is_measured,
        case
            when means.has_gpu_samples and means.active_seconds > 0 and means.gpus > 0
                then
                    case
                        when coalesce(means.utilization_gpu_seconds, 0) > means.active_seconds * means.gpus then 1.0
                        else coalesce(means.utilization_gpu_seconds, 0) / (means.active_seconds * means.gpus)
                    end
        end as sample_coverage,
        means.mean_gpu_utilization_pct,
        means.mean_gpu_memory_used_mib,
        means.mean_gpu_power_watts,
        means.mean_cpu_utilization_pct,
        means.gpu_hours,
        case when means.mean_gpu_utilization_pct is not null then means.gpu_hours end as measured_gpu_hours,
        means.gpu_hours * (1 - means.mean_gpu_utilization_pct / 100.0) as idle_gpu_hours,
        {{ runlens.build_started_at() }} as computed_at
    from intervals
    inner join means on intervals.run_id = means.run_id and intervals.interval_index = means.interval_index
    inner join interval_kinds
        on intervals.run_id = interval_kinds.run_id and intervals.interval_index = interval_kinds.interval_index
    inner join runs on intervals.run_id = runs.run_id
)

select * from final
