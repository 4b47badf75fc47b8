-- Where every line of every raw file ended up. Grain: one row per file.
-- physical_lines = lines_read + blank_lines;
-- lines_read = accepted + duplicates + other_events + rejected. Utilization samples count like
-- events: accepted (of which `samples`), duplicates, or rejected as `bad_sample`.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
),

occurrences as (
    select * from {{ ref('int_event_occurrences') }}
),

samples as (
    select * from {{ ref('int_utilization_samples') }}
),

file_records as (
    select
        file_path,
        size_bytes,
        modified_at,
        is_gzip,
        read_error
    from lines
    where line_number = 0
),

line_counts as (
    select
        file_path,
        count(*) as physical_lines,
        count(*) filter (where is_blank) as blank_lines,
        count(*) filter (where is_other_event) as other_events,
        count(*) filter (where reject_reason is not null) as rejected
    from lines
    where line_number > 0
    group by file_path
),

occurrence_counts as (
    select
        file_path,
        count(*) filter (where occurrence = 1) as accepted,
        count(*) filter (where occurrence > 1) as duplicates
    from occurrences
    group by file_path
),

sample_counts as (
    select
        file_path,
        count(*) filter (where occurrence = 1) as samples,
        count(*) filter (where occurrence > 1) as duplicates,
        count(*) filter (where reject_reason is not null) as rejected
    from samples
    group by file_path
),

final as (
    select
        file_records.file_path,
        file_records.size_bytes,
        file_records.modified_at,
        file_records.is_gzip,
        file_records.read_error,
        coalesce(line_counts.physical_lines, 0) as physical_lines,
        coalesce(line_counts.blank_lines, 0) as blank_lines,
        coalesce(line_counts.physical_lines - line_counts.blank_lines, 0) as lines_read,
        coalesce(occurrence_counts.accepted, 0) + coalesce(sample_counts.samples, 0) as accepted,
        coalesce(sample_counts.samples, 0) as samples,
        coalesce(occurrence_counts.duplicates, 0) + coalesce(sample_counts.duplicates, 0) as duplicates,
        coalesce(line_counts.other_events, 0) as other_events,
        coalesce(line_counts.rejected, 0) + coalesce(sample_counts.rejected, 0) as rejected
    from file_records
    left join line_counts on file_records.file_path = line_counts.file_path
    left join occurrence_counts on file_records.file_path = occurrence_counts.file_path
    left join sample_counts on file_records.file_path = sample_counts.file_path
)

select * from final
