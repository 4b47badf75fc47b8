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

{#- A rollup of fct_run_interval_utilization by group_columns and, within a group, by the columns
    `by` (def_utilization_rollups): over the intervals of runs with GPU samples, the runs, the
    GPU-hours held and measured, the mean GPU utilization over the measured GPU-hours (weighted by
    them), the idle GPU-hours and, with `by`, each row's share of its group's idle GPU-hours. -#}
{% macro utilization_rollup(group_columns, by=[]) -%}
    {%- set keys = group_columns + by -%}
    with

    interval_utilization as (
        select * from {{ ref('fct_run_interval_utilization') }}
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
                when grouped.measured_gpu_hours > 0 then grouped.utilization_gpu_hours / grouped.measured_gpu_hours
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
