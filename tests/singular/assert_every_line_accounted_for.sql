-- Invariant: every line of every file ends in exactly one place:
-- physical = read + blank and read = accepted + duplicates + rejected, per file, and the per-file
-- counts agree with the staging tables they summarise. Returns the files that break it.
with

quality as (
    select * from {{ ref('agg_file_data_quality') }}
),

accepted_events as (
    select
        file_path,
        count(*) as accepted
    from {{ ref('stg_events') }}
    group by file_path
),

rejected_lines as (
    select
        file_path,
        count(*) as rejected
    from {{ ref('stg_event_rejects') }}
    group by file_path
)

select
    quality.file_path,
    quality.physical_lines,
    quality.lines_read,
    quality.accepted,
    quality.duplicates,
    quality.rejected
from quality
left join accepted_events on quality.file_path = accepted_events.file_path
left join rejected_lines on quality.file_path = rejected_lines.file_path
where
    quality.physical_lines != quality.lines_read + quality.blank_lines
    or quality.lines_read != quality.accepted + quality.duplicates + quality.rejected
    or quality.accepted != coalesce(accepted_events.accepted, 0)
    or quality.rejected != coalesce(rejected_lines.rejected, 0)
