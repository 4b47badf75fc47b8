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
        count(*) filter (where line_number > 0) as physical_lines,
        count(*) filter (where line_number > 0 and is_blank) as blank_lines,
        max(read_error) filter (where line_number = 0) as read_error
    from raw_lines
    group by file_path
),

read_counts as (
    select
        file_path,
        count(*) as lines_read,
        count(*) filter (where reject_reason is not null) as rejected
    from event_lines
    group by file_path
),

accepted_counts as (
    select
        file_path,
        count(*) as accepted
    from {{ ref('stg_events') }}
    group by file_path
),

duplicate_counts as (
    select
        file_path,
        count(*) as duplicates
    from {{ ref('stg_event_duplicates') }}
    group by file_path
),

final as (
    select
        files.file_path,
        files.size_bytes,
        files.modified_at,
        files.is_gzip,
        line_counts.read_error,
        coalesce(line_counts.physical_lines, 0) as physical_lines,
        coalesce(line_counts.blank_lines, 0) as blank_lines,
        coalesce(read_counts.lines_read, 0) as lines_read,
        coalesce(accepted_counts.accepted, 0) as accepted,
        coalesce(duplicate_counts.duplicates, 0) as duplicates,
        coalesce(read_counts.rejected, 0) as rejected
    from files
    left join line_counts on files.file_path = line_counts.file_path
    left join read_counts on files.file_path = read_counts.file_path
    left join accepted_counts on files.file_path = accepted_counts.file_path
    left join duplicate_counts on files.file_path = duplicate_counts.file_path
)

select * from final
