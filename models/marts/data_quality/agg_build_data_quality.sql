-- What the load read, summed over every file of the raw folder (agg_file_data_quality; the same
-- accounting identity). Grain: one row, also when the build read no file (then every count is 0).
with

files as (
    select * from {{ ref('agg_file_data_quality') }}
),

final as (
    select
        count(*) as files,
        count(case when read_error is not null then 1 end) as unreadable_files,
        cast(coalesce(sum(physical_lines), 0) as {{ dbt.type_bigint() }}) as physical_lines,
        cast(coalesce(sum(blank_lines), 0) as {{ dbt.type_bigint() }}) as blank_lines,
        cast(coalesce(sum(lines_read), 0) as {{ dbt.type_bigint() }}) as lines_read,
        cast(coalesce(sum(accepted), 0) as {{ dbt.type_bigint() }}) as accepted,
        cast(coalesce(sum(samples), 0) as {{ dbt.type_bigint() }}) as samples,
        cast(coalesce(sum(duplicates), 0) as {{ dbt.type_bigint() }}) as duplicates,
        cast(coalesce(sum(other_events), 0) as {{ dbt.type_bigint() }}) as other_events,
        cast(coalesce(sum(rejected), 0) as {{ dbt.type_bigint() }}) as rejected
    from files
)

select * from final
