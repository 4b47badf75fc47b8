-- Event names in each collection's files (def_collection_files) that were rejected as
-- unknown_event but look like a misspelt runlens event type. Grain: one row per collection and
-- event name.
with

collection_files as (
    select * from {{ ref('fct_collection_files') }}
),

typos as (
    select
        collection_files.collection,
        fct_rejected_lines.event_name,
        fct_rejected_lines.resembles_event_type,
        fct_rejected_lines.reject_id,
        row_number() over (
            partition by collection_files.collection, fct_rejected_lines.event_name
            order by fct_rejected_lines.file_path, fct_rejected_lines.line_number
        ) as line_rank
    from {{ ref('fct_rejected_lines') }}
    inner join collection_files on fct_rejected_lines.file_path = collection_files.file_path
    where
        fct_rejected_lines.reject_reason = 'unknown_event'
        and fct_rejected_lines.resembles_event_type is not null
),

final as (
    select
        collection,
        event_name,
        max(resembles_event_type) as resembles_event_type,
        count(*) as rejected_lines,
        max(case when line_rank = 1 then reject_id end) as first_seen_at
    from typos
    group by collection, event_name
)

select * from final
