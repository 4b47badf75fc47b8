-- depends_on: {{ ref('int_run_versions') }}
-- The time each measurement of a run's accepted samples stands for (def_utilization): from the
-- sample until its device's next sample of the same measurement (same rank and host), at most
-- var utilization_sample_hold_seconds later. The utilization marts lay these spans on the
-- stretches they measure (macros/utilization.sql, stretch_utilization_ctes).
-- Grain: one row per accepted sample and measurement it holds (gpu_utilization, gpu_memory_used,
-- gpu_power, cpu_utilization). Incremental by run (macros/run_versions.sql).
{%- set hold = var('utilization_sample_hold_seconds') %}
with

samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and {{ runlens.is_run_to_compute('run_id') }}
),

next_samples as (
    -- each sample with its device's next sample of each measurement (a device's next sample may
    -- not measure the same thing, so each is held on its own): the samples sorted once by device
    -- and time, a device's samples unique in time (occurrence 1)
    select
        *,
        {%- for measure in runlens.held_utilization_measures() %}
            {{ runlens.next_non_null(
                'case when ' ~ measure ~ ' is not null then sampled_at end',
                'run_id, rank, host, gpu_index',
                'sampled_at'
            ) }} as next_{{ measure }}_at{% if not loop.last %},{% endif %}
        {%- endfor %}
    from samples
),

held as (
    -- one row per measurement a sample holds
    {{ runlens.utilization_measurement_rows('next_samples') }}
),

final as (
    select
        run_id,
        rank,
        host,
        gpu_index,
        sampled_at,
        measure,
        measured_value,
        case
            when next_sampled_at < {{ runlens.add_seconds('sampled_at', hold) }} then next_sampled_at
            else {{ runlens.add_seconds('sampled_at', hold) }}
        end as held_until,
        {{ runlens.build_started_at() }} as computed_at
    from held
)

select * from final
