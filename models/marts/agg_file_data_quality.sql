-- Where every line of every raw file ended up. Grain: one row per file.
-- physical_lines = lines_read + blank_lines; lines_read = accepted + duplicates + rejected.
with

files as (
    select * from {{ ref('stg_raw_files') }}
),

raw_lines as (
    select * from {{ ref('stg_raw_lines') }}
),

event_lines as (
    select * from {{ ref('stg_event_lines') }}
),

line_counts as (
    select
        file_path,
        count(*) as physical_lines,
        count(*) filter (where is_blank) as blank_lines
    from raw_lines
    group by file_path
),

outcome_counts as (
    select
        file_path,
        count(*) as lines_read,
        count(*) filter (where reject_reason is null and not is_duplicate) as accepted,
        count(*) filter (where is_duplicate) as duplicates,
        count(*) filter (where reject_reason is not null) as rejected
    from event_lines
    group by file_path
),

final as (
    select
        files.file_path,
        files.size_bytes,
        files.modified_at,
        files.is_gzip,
        files.read_error,
        coalesce(line_counts.physical_lines, 0) as physical_lines,
        coalesce(line_counts.blank_lines, 0) as blank_lines,
        coalesce(outcome_counts.lines_read, 0) as lines_read,
        coalesce(outcome_counts.accepted, 0) as accepted,
        coalesce(outcome_counts.duplicates, 0) as duplicates,
        coalesce(outcome_counts.rejected, 0) as rejected
    from files
    left join line_counts on files.file_path = line_counts.file_path
    left join outcome_counts on files.file_path = outcome_counts.file_path
)

select * from final
