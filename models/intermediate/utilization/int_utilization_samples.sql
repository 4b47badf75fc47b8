-- depends_on: {{ ref('int_run_versions') }}
-- Every utilization sample line (event `sample`, input_contract.md "Utilization samples") with its
-- own fields checked, as stg_log_lines' parse read them (its sample_* columns: a line is parsed
-- once): the device it measured (`gpu`, else the host), the host that took it, and each
-- measurement runlens reads in its stored unit (macros/utilization.sql). A line that
-- breaks a rule gets `bad_sample` and a detail that says which rule (fct_rejected_lines lists it);
-- a valid sample gets its occurrence among exact copies (same run, rank, host, device and time:
-- the first by file and line is occurrence 1, the one the marts read).
-- Incremental by run (macros/run_versions.sql). Grain: one row per sample line.
{%- set measure_names = runlens.utilization_measures() | map(attribute='name') | list %}
with

sample_lines as (
    -- a sample's own fields as stg_log_lines' parse read them (the line is parsed once)
    select
        file_path,
        line_number,
        run_id,
        coalesce(rank, 0) as rank,
        event_at as sampled_at,
        sample_gpu_kind as gpu_kind,
        sample_gpu_text as gpu_text,
        sample_host_kind as host_kind,
        sample_host_text as host_text,
        sample_measurements_kind as measurements_kind,
        sample_measurements as measurements,
        sample_units_kind as units_kind,
        sample_units as units
    from {{ ref('stg_log_lines') }}
    where event_type = 'sample' and reject_reason is null and {{ runlens.is_run_to_compute('run_id') }}
),

members as {{ runlens.materialized_cte() }} (
    select
        *,
        case when measurements_kind = 'object' then {{ runlens.object_fields('measurements', measure_names) }} end
            as measure_fields,
        case when units_kind = 'object' then {{ runlens.object_fields('units', measure_names) }} end as unit_fields
    from sample_lines
),

measured as {{ runlens.materialized_cte() }} (
    select
        file_path,
        line_number,
        run_id,
        rank,
        sampled_at,
        gpu_kind,
        case when gpu_kind = 'integer' then {{ runlens.try_to_bigint('gpu_text') }} end as gpu_index,
        case when host_kind = 'string' and host_text != '' then host_text end as host,
        host_kind,
        measurements_kind,
        units_kind,
        {{ runlens.sample_measurement_columns('measure_fields', 'unit_fields') }}
    from members
),

checked as (
    select
        *,
        -- the first rule the sample breaks (input_contract.md, "Utilization samples")
        case
            when gpu_kind not in ('null', 'integer') and gpu_kind is not null
                then 'gpu is not an integer >= 0'
            when gpu_index < 0 then 'gpu is not an integer >= 0'
            when host_kind not in ('null', 'string') and host_kind is not null then 'host is not a string'
            when coalesce(measurements_kind, 'null') != 'object' then 'measurements is not an object'
            when units_kind not in ('null', 'object') and units_kind is not null then 'units is not an object'
            {{ runlens.bad_sample_measurement_rules() }}
        end as bad_sample_detail
    from measured
),

converted as (
    select
        file_path,
        line_number,
        run_id,
        rank,
        host,
        gpu_index,
        sampled_at,
        bad_sample_detail,
        {{ runlens.sample_measurements_in_default_units('bad_sample_detail') }}
    from checked
),

numbered as (
    select
        *,
        case
            when bad_sample_detail is null
                then row_number() over (
                    partition by run_id, rank, host, gpu_index, sampled_at, bad_sample_detail
                    order by file_path, line_number
                )
        end as occurrence
    from converted
),

final as (
    select
        file_path,
        line_number,
        run_id,
        rank,
        host,
        gpu_index,
        sampled_at,
        case when bad_sample_detail is not null then 'bad_sample' end as reject_reason,
        bad_sample_detail,
        cast(occurrence as {{ dbt.type_bigint() }}) as occurrence,
        {{ measure_names | join(', ') }},
        {{ runlens.build_started_at() }} as computed_at
    from numbered
)

select * from final
