-- Invariant: every line of every file ends in exactly one place:
-- physical = read + blank and read = accepted + duplicates + rejected, per file (lines read and
-- rejected are counted in stg_event_lines, accepted in stg_events, duplicates in
-- stg_event_duplicates: three separate models that must agree), and every raw line is
-- classified exactly once. Returns the files that break it.
with

quality as (
    select * from {{ ref('agg_file_data_quality') }}
),

non_blank_raw_lines as (
    select
        file_path,
        count(*) as non_blank
    from {{ ref('stg_raw_lines') }}
    where line_number > 0 and not is_blank
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
left join non_blank_raw_lines on quality.file_path = non_blank_raw_lines.file_path
left join rejected_lines on quality.file_path = rejected_lines.file_path
where
    quality.physical_lines != quality.lines_read + quality.blank_lines
    or quality.lines_read != quality.accepted + quality.duplicates + quality.rejected
    or quality.lines_read != coalesce(non_blank_raw_lines.non_blank, 0)
    or quality.rejected != coalesce(rejected_lines.rejected, 0)
