-- Rejected lines in each collection's files (def_collection_files) per reason code, with the
-- first place each was seen. Grain: one row per collection and reject_reason that occurred.
with

collection_files as (
    select * from {{ ref('fct_collection_files') }}
),

rejects as (
    select
        collection_files.collection,
        fct_rejected_lines.reject_reason,
        fct_rejected_lines.file_path,
        fct_rejected_lines.reject_id,
        row_number() over (
            partition by collection_files.collection, fct_rejected_lines.reject_reason
            order by fct_rejected_lines.file_path, fct_rejected_lines.line_number
        ) as line_rank
    from {{ ref('fct_rejected_lines') }}
    inner join collection_files on fct_rejected_lines.file_path = collection_files.file_path
),

final as (
    select
        collection,
        reject_reason,
        count(*) as rejected_lines,
        count(distinct file_path) as files,
        max(case when line_rank = 1 then reject_id end) as first_seen_at
    from rejects
    group by collection, reject_reason
)

select * from final
