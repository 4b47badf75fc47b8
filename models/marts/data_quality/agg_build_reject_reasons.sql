-- Rejected lines per reason code. Grain: one row per reason that occurred.
with

rejects as (
    select * from {{ ref('fct_rejected_lines') }}
),

final as (
    select
        reject_reason,
        count(*) as rejected_lines,
        count(distinct file_path) as files,
        min(file_path || ':' || line_number) as first_seen_at
    from rejects
    group by reject_reason
)

select * from final
