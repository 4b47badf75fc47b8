{#- Utilization samples (input_contract.md, "Utilization samples"; def_utilization_samples): the
    measurements runlens reads from a sample line's `measurements` object, where each may be
    taken (`gpu`: a sample that names a GPU; `host`: a sample that names none), its unit when the
    line's `units` object names none, the units it accepts with their factor to that unit, and its
    greatest value. -#}
{% macro utilization_measures() -%}
    {%- set bytes_to_mib = {'MiB': 1, 'B': 1.0 / 1048576, 'KiB': 1.0 / 1024, 'GiB': 1024, 'MB': 1000000.0 / 1048576, 'GB': 1000000000.0 / 1048576} -%}
    {{ return([
        {'name': 'gpu_utilization', 'device': 'gpu', 'units': {'%': 1}, 'max': 100},
        {'name': 'gpu_memory_used', 'device': 'gpu', 'units': bytes_to_mib, 'max': none},
        {'name': 'gpu_memory_utilization', 'device': 'gpu', 'units': {'%': 1}, 'max': 100},
        {'name': 'gpu_power', 'device': 'gpu', 'units': {'W': 1, 'mW': 0.001}, 'max': none},
        {'name': 'cpu_utilization', 'device': 'host', 'units': {'%': 1}, 'max': 100},
        {'name': 'host_memory_utilization', 'device': 'host', 'units': {'%': 1}, 'max': 100},
        {'name': 'process_memory_used', 'device': 'host', 'units': bytes_to_mib, 'max': none},
    ]) }}
{%- endmacro %}

{#- The unit each measurement is stored in (the first of its units). -#}
{% macro utilization_unit(measure) -%}
    {{ return((measure['units'] | list)[0]) }}
{%- endmacro %}

{#- A JSON value that may be an object, read through the fields `keys` like a parsed line's
    (parsed_fields): json_kind, json_text and json_value then read its members. -#}
{% macro object_fields(value, keys) -%}
    {{ return(adapter.dispatch('object_fields', 'runlens')(value, keys)) }}
{%- endmacro %}

{% macro duckdb__object_fields(value, keys) -%}
    {
        'fields': json_transform(
            {{ value }}, '{ {%- for key in keys %}"{{ key }}":"JSON"{% if not loop.last %},{% endif %}{% endfor -%} }'
        ),
        'is_object': json_type({{ value }}) = 'OBJECT'
    }
{%- endmacro %}

{% macro default__object_fields(value, keys) -%}
    {{ value }}
{%- endmacro %}

{% macro spark__object_fields(value, keys) -%}
    {{ runlens.spark__parsed_fields(value, keys) }}
{%- endmacro %}

{#- The rule that finds a held span's end: a sample stands for its device from its time until the
    device's next sample, at most var utilization_sample_hold_seconds later (def_utilization). -#}
{% macro utilization_hold_seconds() -%}
    {{ return(var('utilization_sample_hold_seconds')) }}
{%- endmacro %}

{#- A mean of percentages (GPU or CPU utilization), weighted_sum (value x weight, summed) over
    weights: at most 100. Each value is at most 100, but the rounding of the float sums can pass 100
    by its last bit when every value is 100 (a GPU or a host busy throughout), which the marts'
    checks (between 0 and 100) would refuse; it cannot fall below 0 (no term is negative). -#}
{% macro percent_mean(weighted_sum, weights) -%}
    least({{ weighted_sum }} / {{ weights }}, 100.0)
{%- endmacro %}

{#- A rollup of fct_run_interval_utilization (or another mart of measured stretches, `stretches`)
    by group_columns and, within a group, by the columns `by` (def_utilization_rollups): over the
    stretches of runs with GPU samples, the runs, the
    GPU-hours held and measured, the mean GPU utilization over the measured GPU-hours (weighted by
    them), the idle GPU-hours and, with `by`, each row's share of its group's idle GPU-hours. -#}
{% macro utilization_rollup(group_columns, by=[], stretches='fct_run_interval_utilization') -%}
    {%- set keys = group_columns + by -%}
    with

    interval_utilization as (
        select * from {{ ref(stretches) }}
        where gpu_hours is not null
    ),

    grouped as (
        select
            {{ keys | join(', ') }},
            count(distinct run_id) as runs,
            sum(gpu_hours) as gpu_hours,
            coalesce(sum(measured_gpu_hours), 0) as measured_gpu_hours,
            sum(mean_gpu_utilization_pct * measured_gpu_hours) as utilization_gpu_hours,
            coalesce(sum(idle_gpu_hours), 0) as idle_gpu_hours
        from interval_utilization
        group by {{ keys | join(', ') }}
    ),

    {%- if by %}

    group_totals as (
        select
            {{ group_columns | join(', ') }},
            sum(idle_gpu_hours) as group_idle_gpu_hours
        from grouped
        group by {{ group_columns | join(', ') }}
    ),
    {%- endif %}

    final as (
        select
            {%- for key in keys %}
            grouped.{{ key }},
            {%- endfor %}
            grouped.runs,
            grouped.gpu_hours,
            grouped.measured_gpu_hours,
            grouped.gpu_hours - grouped.measured_gpu_hours as unmeasured_gpu_hours,
            case
                when grouped.measured_gpu_hours > 0
                    then {{ runlens.percent_mean('grouped.utilization_gpu_hours', 'grouped.measured_gpu_hours') }}
            end as mean_gpu_utilization_pct,
            case when grouped.measured_gpu_hours > 0 then grouped.idle_gpu_hours end as idle_gpu_hours
            {%- if by %},
            case
                when group_totals.group_idle_gpu_hours > 0 and grouped.measured_gpu_hours > 0
                    then grouped.idle_gpu_hours / group_totals.group_idle_gpu_hours
            end as share_of_idle_gpu_hours
            {%- endif %}
        from grouped
        {%- if by %}
        inner join group_totals
            on {% for column in group_columns %}grouped.{{ column }} = group_totals.{{ column }}{% if not loop.last %} and {% endif %}{% endfor %}
        {%- endif %}
    )

    select * from final
{%- endmacro %}

{#- int_utilization_samples: per measurement, its JSON kind, its value as a double, its unit's JSON
    kind and its unit (the default when `units` names none), from the sample's `measurements` and
    `units` read through object_fields. -#}
{% macro sample_measurement_columns(measure_fields, unit_fields) -%}
    {%- for measure in runlens.utilization_measures() %}
    coalesce({{ runlens.json_kind(measure_fields, measure.name) }}, 'null') as {{ measure.name }}_kind,
    case
        when {{ runlens.json_kind(measure_fields, measure.name) }} in ('integer', 'number')
            then {{ runlens.try_to_double(runlens.json_text(measure_fields, measure.name)) }}
    end as {{ measure.name }}_value,
    coalesce({{ runlens.json_kind(unit_fields, measure.name) }}, 'null') as {{ measure.name }}_unit_kind,
    coalesce(
        case
            when {{ runlens.json_kind(unit_fields, measure.name) }} = 'string'
                then {{ runlens.json_text(unit_fields, measure.name) }}
        end,
        '{{ runlens.utilization_unit(measure) }}'
    ) as {{ measure.name }}_unit{% if not loop.last %},{% endif %}
    {%- endfor %}
{%- endmacro %}

{#- The CASE branches of the measurement rules (input_contract.md, "Utilization samples"), each
    giving the detail of a bad sample, in the order of utilization_measures, then the rule that a
    sample holds at least one measurement. -#}
{% macro bad_sample_measurement_rules() -%}
    {%- set measures = runlens.utilization_measures() -%}
    {%- for measure in measures %}
    {%- set name = measure.name %}
    when {{ name }}_kind not in ('null', 'integer', 'number') then '{{ name }} is not a number'
    when {{ name }}_unit_kind not in ('null', 'string') then 'the unit of {{ name }} is not a string'
    when {{ name }}_kind != 'null' and {{ name }}_unit not in ('{{ measure.units | list | join("', '") }}')
        then 'the unit of {{ name }} is none of {{ measure.units | list | join(", ") }}'
    when {{ name }}_value < 0 then '{{ name }} is below 0'
    {%- if measure.max is not none %}
    when {{ name }}_value > {{ measure.max }} then '{{ name }} is above {{ measure.max }}'
    {%- endif %}
    {%- if measure.device == 'gpu' %}
    when {{ name }}_kind != 'null' and gpu_index is null
        then '{{ name }} is a GPU measurement: the sample must name its gpu'
    {%- else %}
    when {{ name }}_kind != 'null' and gpu_index is not null
        then '{{ name }} is a host measurement: a sample that names a gpu cannot hold it'
    {%- endif %}
    {%- endfor %}
    when {% for measure in measures %}{{ measure.name }}_kind = 'null'{% if not loop.last %} and {% endif %}{% endfor %}
        then 'no measurement runlens reads ({{ measures | map(attribute="name") | join(", ") }})'
{%- endmacro %}

{#- Each measurement of a valid sample in its default unit (NULL for a bad sample). -#}
{% macro sample_measurements_in_default_units(bad_sample_detail) -%}
    {%- for measure in runlens.utilization_measures() %}
    case
        when {{ bad_sample_detail }} is null
            then {{ measure.name }}_value * case {{ measure.name }}_unit
                {%- for unit, factor in measure.units.items() %}
                when '{{ unit }}' then {{ factor }}
                {%- endfor %}
            end
    end as {{ measure.name }}{% if not loop.last %},{% endif %}
    {%- endfor %}
{%- endmacro %}

{#- The measurements the utilization marts average over time, each held on its own by
    int_run_utilization_spans. -#}
{% macro held_utilization_measures() -%}
    {{ return(['gpu_utilization', 'gpu_memory_used', 'gpu_power', 'cpu_utilization']) }}
{%- endmacro %}

{#- int_run_utilization_spans: one row per measurement a sample holds (held_utilization_measures),
    as measure and measured_value, with its device's next sample of that measurement
    (next_<measure>_at of `samples`) as next_sampled_at. -#}
{% macro utilization_measurement_rows(samples) -%}
    {%- for measure in runlens.held_utilization_measures() %}
    select
        run_id,
        rank,
        host,
        gpu_index,
        sampled_at,
        '{{ measure }}' as measure,
        {{ measure }} as measured_value,
        next_{{ measure }}_at as next_sampled_at
    from {{ samples }}
    where {{ measure }} is not null
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}

{#- The CTEs that measure how busy stretches of time kept a run's GPUs (def_utilization,
    def_idle_gpu_hours), ending in `stretch_utilization`: one row per stretch of `stretches` (a CTE
    with run_id, the columns `keys`, started_at, active_ended_at and active_seconds), with its
    GPUs, samples inside it, whether it is measured, its sample coverage, time-weighted means,
    GPU-hours and idle GPU-hours. The held spans are int_run_utilization_spans'; every stretch
    gets a row, NULL figures for a run without GPU samples. Used by every mart that measures
    utilization over time (intervals, goodput parts), so the rule is written once. -#}
{% macro stretch_utilization_ctes(stretches, keys, live=false) -%}
{%- set min_samples = var('utilization_min_samples') -%}
{%- set to_compute = runlens.is_run_to_compute_or_live('run_id') if live else runlens.is_run_to_compute('run_id') -%}
{%- set on_keys -%}
{%- for key in ['run_id'] + keys %}{{ stretches }}.{{ key }} = {rel}.{{ key }}{% if not loop.last %} and {% endif %}{% endfor -%}
{%- endset -%}
utilization_spans as (
    select * from {{ ref('int_run_utilization_spans') }}
    where {{ to_compute }}
),

accepted_samples as (
    select * from {{ ref('int_utilization_samples') }}
    where occurrence = 1 and {{ to_compute }}
),

sampled_gpus as (
    select * from {{ ref('int_run_sampled_gpus') }}
    where {{ to_compute }}
),

span_overlaps as (
    -- the part of each held span inside each stretch
    select
        {% for key in ['run_id'] + keys %}{{ stretches }}.{{ key }},
        {% endfor -%}
        utilization_spans.measure,
        utilization_spans.measured_value,
        utilization_spans.sampled_at >= {{ stretches }}.started_at
        and utilization_spans.sampled_at < {{ stretches }}.active_ended_at as is_inside,
        {{ runlens.seconds_between(
            'case when utilization_spans.sampled_at > ' ~ stretches ~ '.started_at'
            ~ ' then utilization_spans.sampled_at else ' ~ stretches ~ '.started_at end',
            'case when utilization_spans.held_until < ' ~ stretches ~ '.active_ended_at'
            ~ ' then utilization_spans.held_until else ' ~ stretches ~ '.active_ended_at end'
        ) }} as overlap_seconds
    from {{ stretches }}
    inner join utilization_spans
        on {{ stretches }}.run_id = utilization_spans.run_id
        and {{ stretches }}.active_ended_at > utilization_spans.sampled_at
        and {{ stretches }}.started_at < utilization_spans.held_until
),

inside_samples as (
    -- the samples taken inside each stretch, GPU and host
    select
        {% for key in ['run_id'] + keys %}{{ stretches }}.{{ key }},
        {% endfor -%}
        count(case when accepted_samples.gpu_index is not null then 1 end) as gpu_samples,
        count(case when accepted_samples.gpu_index is null then 1 end) as host_samples
    from {{ stretches }}
    inner join accepted_samples
        on {{ stretches }}.run_id = accepted_samples.run_id
        and {{ stretches }}.started_at <= accepted_samples.sampled_at
        and {{ stretches }}.active_ended_at > accepted_samples.sampled_at
    group by {% for key in ['run_id'] + keys %}{{ stretches }}.{{ key }}{% if not loop.last %}, {% endif %}{% endfor %}
),

stretch_sums as (
    select
        {% for key in ['run_id'] + keys %}{{ key }},
        {% endfor -%}
        count(case when is_inside and measure = 'gpu_utilization' then 1 end) as gpu_utilization_samples,
        sum(case when measure = 'gpu_utilization' then overlap_seconds end) as utilization_gpu_seconds,
        sum(case when measure = 'gpu_utilization' then measured_value * overlap_seconds end) as utilization_integral,
        sum(case when measure = 'gpu_memory_used' then overlap_seconds end) as memory_gpu_seconds,
        sum(case when measure = 'gpu_memory_used' then measured_value * overlap_seconds end) as memory_integral,
        sum(case when measure = 'gpu_power' then overlap_seconds end) as power_gpu_seconds,
        sum(case when measure = 'gpu_power' then measured_value * overlap_seconds end) as power_integral,
        count(case when is_inside and measure = 'cpu_utilization' then 1 end) as cpu_samples,
        sum(case when measure = 'cpu_utilization' then overlap_seconds end) as cpu_seconds,
        sum(case when measure = 'cpu_utilization' then measured_value * overlap_seconds end) as cpu_integral
    from span_overlaps
    group by {{ (['run_id'] + keys) | join(', ') }}
),

stretch_figures as (
    select
        {% for key in ['run_id'] + keys %}{{ stretches }}.{{ key }},
        {% endfor -%}
        {{ stretches }}.active_seconds,
        sampled_gpus.gpus,
        sampled_gpus.gpus_source,
        sampled_gpus.run_id is not null as has_gpu_samples,
        coalesce(inside_samples.gpu_samples, 0) as gpu_samples,
        coalesce(inside_samples.host_samples, 0) as host_samples,
        sampled_gpus.run_id is not null
        and coalesce(stretch_sums.gpu_utilization_samples, 0) >= {{ min_samples }} * sampled_gpus.sampled_gpus
            as is_measured,
        stretch_sums.utilization_gpu_seconds,
        stretch_sums.utilization_integral,
        stretch_sums.memory_gpu_seconds,
        stretch_sums.memory_integral,
        stretch_sums.power_gpu_seconds,
        stretch_sums.power_integral,
        stretch_sums.cpu_samples,
        stretch_sums.cpu_seconds,
        stretch_sums.cpu_integral
    from {{ stretches }}
    left join sampled_gpus on {{ stretches }}.run_id = sampled_gpus.run_id
    left join stretch_sums on {{ on_keys | replace('{rel}', 'stretch_sums') }}
    left join inside_samples on {{ on_keys | replace('{rel}', 'inside_samples') }}
),

stretch_means as (
    select
        *,
        case
            when is_measured and utilization_gpu_seconds > 0
                then {{ runlens.percent_mean('utilization_integral', 'utilization_gpu_seconds') }}
        end as mean_gpu_utilization_pct,
        case when has_gpu_samples then active_seconds * gpus / 3600.0 end as gpu_hours
    from stretch_figures
),

stretch_utilization as (
    select
        {% for key in ['run_id'] + keys %}{{ key }},
        {% endfor -%}
        active_seconds,
        gpus,
        gpus_source,
        gpu_samples,
        host_samples,
        is_measured,
        case
            when has_gpu_samples and active_seconds > 0 and gpus > 0
                then
                    case
                        when coalesce(utilization_gpu_seconds, 0) > active_seconds * gpus then 1.0
                        else coalesce(utilization_gpu_seconds, 0) / (active_seconds * gpus)
                    end
        end as sample_coverage,
        mean_gpu_utilization_pct,
        case when is_measured and memory_gpu_seconds > 0 then memory_integral / memory_gpu_seconds end
            as mean_gpu_memory_used_mib,
        case when is_measured and power_gpu_seconds > 0 then power_integral / power_gpu_seconds end
            as mean_gpu_power_watts,
        case
            when cpu_samples >= {{ min_samples }} and cpu_seconds > 0
                then {{ runlens.percent_mean('cpu_integral', 'cpu_seconds') }}
        end as mean_cpu_utilization_pct,
        gpu_hours,
        case when mean_gpu_utilization_pct is not null then gpu_hours end as measured_gpu_hours,
        gpu_hours * (1 - mean_gpu_utilization_pct / 100.0) as idle_gpu_hours
    from stretch_means
)
{%- endmacro %}
