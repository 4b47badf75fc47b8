-- The version of each run's lines: how many valid lines name the run and when the newest of them
-- was read. A run's version changes exactly when a file holding its lines is read again, added or
-- removed, and then changed_at says in which build. The per-run models recompute the runs that
-- changed after the newest run they hold (macros/run_versions.sql). A run whose lines are all
-- gone keeps a row with a NULL version. Grain: one row per run_id ever seen.
{{ config(**runlens.incremental_config('version')) }}
with

valid_lines as (
    select
        run_id,
        loaded_at
    from {{ ref('stg_log_lines') }}
    where run_id is not null and not is_other_event
),

current_versions as (
    select
        run_id,
        cast(count(*) as {{ dbt.type_string() }}) || ':' || cast(max(loaded_at) as {{ dbt.type_string() }})
            as run_version
    from valid_lines
    group by run_id
),

previous_versions as (
    -- on a full build there is nothing before
    select
        run_id,
        run_version
    from {% if is_incremental() %}{{ this }}{% else %}current_versions{% endif %}
    where {{ 'true' if is_incremental() else 'false' }}
),

changed_versions as (
    select
        current_versions.run_id,
        current_versions.run_version
    from current_versions
    left join previous_versions on current_versions.run_id = previous_versions.run_id
    where previous_versions.run_version is null or previous_versions.run_version != current_versions.run_version
    union all
    select
        previous_versions.run_id,
        cast(null as {{ dbt.type_string() }}) as run_version
    from previous_versions
    left join current_versions on previous_versions.run_id = current_versions.run_id
    where previous_versions.run_version is not null and current_versions.run_id is null
),

final as (
    select
        run_id,
        run_version,
        {{ runlens.build_started_at() }} as changed_at
    from changed_versions
)

select * from final
