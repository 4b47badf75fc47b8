-- Rejected lines: file, line number, the raw text as far as it decodes, and one reason code;
-- for an unknown_event, the event as written and the runlens type it resembles, if any.
-- A view over stg_log_lines and the bad utilization samples (int_utilization_samples, with the
-- rule each breaks; their text from the raw lines, as stg_log_lines keeps no sample's text); a line
-- that names a run gets its run's collection and task.
-- Grain: one row per rejected line.
with

lines as (
    select * from {{ ref('stg_log_lines') }}
    where reject_reason is not null
),

raw_lines as (
    -- the text of every line as the reader wrote it (stg_log_lines' raw_text is this text)
    select
        file_path,
        line_number,
        text
    from {{ source('runlens_raw', 'log_lines') }}
),

bad_samples as (
    select * from {{ ref('int_utilization_samples') }}
    where reject_reason is not null
),

rejected as (
    select
        file_path,
        line_number,
        raw_text,
        rejected_run_id,
        reject_reason,
        cast(null as {{ dbt.type_string() }}) as reject_detail,
        event_type,
        resembles_event_type
    from lines
    where reject_reason is not null
    union all
    select
        bad_samples.file_path,
        bad_samples.line_number,
        raw_lines.text as raw_text,
        bad_samples.run_id as rejected_run_id,
        bad_samples.reject_reason,
        bad_samples.bad_sample_detail as reject_detail,
        cast(null as {{ dbt.type_string() }}) as event_type,
        cast(null as {{ dbt.type_string() }}) as resembles_event_type
    from bad_samples
    inner join raw_lines
        on bad_samples.file_path = raw_lines.file_path and bad_samples.line_number = raw_lines.line_number
),

runs as (
    -- each run's collection and task, from its first run_start (NULL without one)
    select * from {{ ref('int_run_attributes') }}
),

final as (
    select
        rejected.file_path || ':' || cast(rejected.line_number as {{ dbt.type_string() }}) as reject_id,
        rejected.file_path,
        rejected.line_number,
        rejected.raw_text,
        rejected.rejected_run_id as run_id,
        runs.collection,
        runs.task,
        rejected.reject_reason,
        rejected.reject_detail,
        rejected.event_type as event_name,
        rejected.resembles_event_type
    from rejected
    left join runs on rejected.rejected_run_id = runs.run_id
)

select * from final
