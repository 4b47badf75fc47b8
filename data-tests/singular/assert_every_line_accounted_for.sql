-- Invariant: every line of every file ends in exactly one place:
-- physical = read + blank and read = accepted + duplicates + other events + rejected, per file
-- (accepted and duplicates are counted in int_event_occurrences, lines, other events and rejects
-- in stg_log_lines: separate models that must agree), every valid line of a runlens type is an
-- occurrence, every other event is in fct_other_events and every rejected line is listed in
-- fct_rejected_lines (utilization samples: accepted, duplicates or bad samples, from
-- int_utilization_samples). Returns the files that break it.
with

quality as (
    select * from {{ ref('agg_file_data_quality') }}
),

line_counts as (
    select
        file_path,
        count(*) filter (where not is_blank and reject_reason is null and not is_other_event) as valid,
        count(*) filter (where run_id is not null and not is_other_event) as with_run_id
    from {{ ref('stg_log_lines') }}
    where line_number > 0
    group by file_path
),

bad_samples as (
    select
        file_path,
        count(*) as bad_samples
    from {{ ref('int_utilization_samples') }}
    where reject_reason is not null
    group by file_path
),

rejected_lines as (
    select
        file_path,
        count(*) as rejected
    from {{ ref('fct_rejected_lines') }}
    group by file_path
),

other_events as (
    select
        file_path,
        count(*) as other_events
    from {{ ref('fct_other_events') }}
    group by file_path
)

select
    quality.file_path,
    quality.physical_lines,
    quality.lines_read,
    quality.accepted,
    quality.duplicates,
    quality.other_events,
    quality.rejected
from quality
left join line_counts on quality.file_path = line_counts.file_path
left join rejected_lines on quality.file_path = rejected_lines.file_path
left join bad_samples on quality.file_path = bad_samples.file_path
left join other_events on quality.file_path = other_events.file_path
where
    quality.physical_lines != quality.lines_read + quality.blank_lines
    or quality.lines_read != quality.accepted + quality.duplicates + quality.other_events + quality.rejected
    or quality.accepted + quality.duplicates + coalesce(bad_samples.bad_samples, 0) != coalesce(line_counts.valid, 0)
    or coalesce(line_counts.valid, 0) != coalesce(line_counts.with_run_id, 0)
    or quality.rejected != coalesce(rejected_lines.rejected, 0)
    or quality.other_events != coalesce(other_events.other_events, 0)
