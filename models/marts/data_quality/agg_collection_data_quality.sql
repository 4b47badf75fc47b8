-- What the load read from each collection's files (def_collection_files), line by line as
-- agg_file_data_quality counts them: the profile's data quality. Grain: one row per collection
-- with runs.
with

collections as (
    select collection from {{ ref('dim_collections') }}
    where runs > 0
),

collection_files as (
    select * from {{ ref('fct_collection_files') }}
),

files as (
    select * from {{ ref('agg_file_data_quality') }}
),

sums as (
    select
        collection_files.collection,
        count(*) as files,
        count(files.read_error) as unreadable_files,
        sum(files.physical_lines) as physical_lines,
        sum(files.blank_lines) as blank_lines,
        sum(files.lines_read) as lines_read,
        sum(files.accepted) as accepted,
        sum(files.samples) as samples,
        sum(files.duplicates) as duplicates,
        sum(files.other_events) as other_events,
        sum(files.rejected) as rejected
    from collection_files
    inner join files on collection_files.file_path = files.file_path
    group by collection_files.collection
),

final as (
    select
        collections.collection,
        cast(coalesce(sums.files, 0) as {{ dbt.type_bigint() }}) as files,
        cast(coalesce(sums.unreadable_files, 0) as {{ dbt.type_bigint() }}) as unreadable_files,
        cast(coalesce(sums.physical_lines, 0) as {{ dbt.type_bigint() }}) as physical_lines,
        cast(coalesce(sums.blank_lines, 0) as {{ dbt.type_bigint() }}) as blank_lines,
        cast(coalesce(sums.lines_read, 0) as {{ dbt.type_bigint() }}) as lines_read,
        cast(coalesce(sums.accepted, 0) as {{ dbt.type_bigint() }}) as accepted,
        cast(coalesce(sums.samples, 0) as {{ dbt.type_bigint() }}) as samples,
        cast(coalesce(sums.duplicates, 0) as {{ dbt.type_bigint() }}) as duplicates,
        cast(coalesce(sums.other_events, 0) as {{ dbt.type_bigint() }}) as other_events,
        cast(coalesce(sums.rejected, 0) as {{ dbt.type_bigint() }}) as rejected
    from collections
    left join sums on collections.collection = sums.collection
)

select * from final
