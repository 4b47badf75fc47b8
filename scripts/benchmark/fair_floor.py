"""The fair floor: the least work that does what the build does for fct_runs, written by hand.

The simple floor (simple_floor.py) reads the files with `read_json(ignore_errors)` and keeps
nothing; the build keeps every line. This baseline does the same accounting as the build, each
step a table in a DuckDB file, in the plainest DuckDB SQL that does the job:

1. lines: every physical line with its file and line number, read by the build's own reader
   (runlens/raw_logs/duckdb_reader.py: DuckDB reads the plain files itself, and only what it
   cannot, gzip or invalid UTF-8, goes through Python), split on LF, CR and BOM removed, blank
   lines marked;
2. parsed: strict JSON (DuckDB's parser takes NaN and trailing commas, which are then refused),
   the typed fields, and every line's reject reason in the contract's order;
3. events: exact duplicates numbered, the first occurrence accepted;
4. runs: fct_runs' figures per run (collection, status, wall, pre-tail and tail seconds, whether
   analyzed), from the run's markers as def_markers orders them;
5. collections: the rollup (runs analyzed, mean and median wall).

It is checked against the marts (benchmark.agreement). Run in its own measured process
(`scripts/bench.py _fair_floor RAW_DIR MARTS_DB OUT_JSON`); writes {"query_seconds": reading and
SQL together, "steps": seconds per step, "check": agreement with the marts}.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from runlens.raw_logs.duckdb_reader import refresh
from scripts.benchmark.agreement import compare_with_marts

REPO = Path(__file__).resolve().parents[2]

FIELDS = (
    '{"run_id":"JSON","event":"JSON","ts":"JSON","step":"JSON","epoch":"JSON","collection":"JSON",'
    '"task":"JSON","config":"JSON","status":"JSON","wall_seconds":"JSON","sections":"JSON","final":"JSON"}'
)
TS_PATTERN = (
    "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    "([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$"
)

STEPS = {
    # every physical line of every file, as the build's own reader wrote them into the raw tables
    # (runlens/raw_logs/duckdb_reader.py, run as the step "read"): split on LF, BOM and CR removed,
    # blank lines marked; an invalid line keeps its escaped form as its text
    "lines": """
create table lines as
select
    file_path,
    line_number,
    text,
    is_invalid_utf8 as is_invalid,
    is_blank
from raw.log_lines
order by file_path, line_number
""",
    # strict JSON, the typed fields and every line's reject reason in the contract's order; a
    # field's kind from the first character of its JSON text (a number's from json_type)
    "parsed": rf"""
create table parsed as
with
docs as (
    select
        file_path,
        line_number,
        text,
        is_invalid,
        is_blank,
        case
            when is_invalid or is_blank or not json_valid(text) then null
            -- NaN, Infinity or a trailing comma, which DuckDB's parser takes; the costly check
            -- runs only where a cheap one finds a candidate (a CASE: AND evaluates both sides)
            when case
                when regexp_matches(text, '(?i)nan|inf|,\s*[}}\]]') then regexp_matches(
                    regexp_replace(regexp_replace(text, '"(\\.|[^"\\])*"', '""', 'g'), 'true|false|null', '0', 'g'),
                    ',\s*[}}\]]|[a-df-zA-DF-Z]'
                )
                else false
            end then null
            else json_transform(text, '{FIELDS}')
        end as doc
    from lines
),
fields as (
    select
        file_path,
        line_number,
        text,
        is_invalid,
        is_blank,
        doc,
        case when doc is not null then ltrim(text, ' ' || chr(9) || chr(13))[1] = '{{' end as is_object,
        left(doc.run_id::varchar, 1) = '"' as run_id_is_string,
        doc.run_id ->> '$' as run_id,
        left(doc.event::varchar, 1) = '"' as event_is_string,
        doc.event ->> '$' as event_type,
        left(doc.ts::varchar, 1) as ts_first,
        doc.ts ->> '$' as ts_text,
        doc.step,
        doc.epoch,
        left(doc.collection::varchar, 1) = '"' as collection_is_string,
        doc.collection ->> '$' as collection,
        left(doc.task::varchar, 1) = '"' as task_is_string,
        doc.task ->> '$' as task,
        doc.status ->> '$' as status,
        doc.wall_seconds,
        -- a profile is final unless its `final` is false (written while the run was going)
        coalesce(doc.final::varchar = 'false', false) as is_not_final,
        left(doc.sections::varchar, 1) as sections_first,
        doc.sections
    from docs
),
typed as (
    select
        *,
        case
            when ts_first = '"' then case
                when regexp_full_match(ts_text, '{TS_PATTERN}') then try((try_cast(
                    case
                        when regexp_matches(ts_text, '([Zz]|[+-][0-9]{{2}}:[0-9]{{2}})$') then upper(ts_text)
                        else upper(ts_text) || '+00:00'
                    end as timestamptz) at time zone 'UTC')::timestamp)
            end
            when json_type(doc.ts) in ('UBIGINT', 'BIGINT', 'DOUBLE')
                then try(make_timestamp(round(try_cast(ts_text as double) * 1000000)::bigint))
        end as event_at,
        case when json_type(step) in ('UBIGINT', 'BIGINT') then try_cast(step ->> '$' as bigint) end as step_number,
        case when json_type(epoch) in ('UBIGINT', 'BIGINT') then try_cast(epoch ->> '$' as bigint) end as epoch_number,
        case
            when json_type(wall_seconds) in ('UBIGINT', 'BIGINT', 'DOUBLE')
                then try_cast(wall_seconds ->> '$' as double)
        end as wall_seconds_number
    from fields
)
select
    file_path,
    line_number,
    is_blank,
    case
        when is_blank then null
        when is_invalid then 'invalid_utf8'
        when doc is null then 'invalid_json'
        when not is_object then 'not_object'
        when not coalesce(run_id_is_string, false) or run_id = '' then 'missing_run_id'
        when not coalesce(event_is_string, false) then 'missing_event'
        when event_at is null then 'bad_ts'
        -- another event type: an other event (no reject) unless a likely typo or of no sensible form
        when event_type not in ('run_start', 'checkpoint', 'epoch_end', 'run_end', 'profile') then case
            when not regexp_full_match(event_type, '[A-Za-z][A-Za-z0-9_.:/-]{{0,63}}') then 'unknown_event'
            when list_min(list_transform(
                [
                    {{'name': 'runstart', 'distance': 2}}, {{'name': 'checkpoint', 'distance': 2}},
                    {{'name': 'epochend', 'distance': 2}}, {{'name': 'runend', 'distance': 1}},
                    {{'name': 'profile', 'distance': 1}}
                ],
                lambda known: levenshtein(lower(regexp_replace(event_type, '[^A-Za-z0-9]', '', 'g')), known.name)
                    - known.distance
            )) <= 0 then 'unknown_event'
        end
        when event_type = 'checkpoint' and step_number is null then 'missing_step'
        when event_type = 'run_start' and (not coalesce(collection_is_string, false) or collection = ''
            or not coalesce(task_is_string, false) or task = '') then 'missing_run_fields'
        when event_type = 'profile' and (wall_seconds_number is null or wall_seconds_number < 0
            or not isfinite(wall_seconds_number) or sections_first not in ('{{', 'n')
            or (sections_first = '{{' and not coalesce(list_bool_and(list_transform(
                map_entries(try_cast(sections as map(varchar, json))),
                lambda entry: coalesce(json_type(entry.value) in ('UBIGINT', 'BIGINT', 'DOUBLE')
                    and try_cast(entry.value as double) >= 0, false))),
                try_cast(sections as map(varchar, json)) is not null)))
            then 'bad_profile'
    end as reject_reason,
    case when is_invalid or doc is null then text end as raw_text,
    run_id,
    event_type,
    event_at,
    step_number as step,
    epoch_number as epoch,
    collection,
    coalesce(status, 'completed') as status,
    case when not is_not_final then wall_seconds_number end as wall_seconds
from typed
""",
    "events": """
create table events as
select
    file_path,
    line_number,
    run_id,
    event_type,
    event_at,
    step,
    collection,
    status,
    wall_seconds,
    row_number() over (
        partition by run_id, event_type, event_at, step, epoch order by file_path, line_number
    ) as occurrence
from parsed
where
    reject_reason is null and not is_blank
    and event_type in ('run_start', 'checkpoint', 'epoch_end', 'run_end', 'profile')
""",
    "runs": """
create table runs as
with
accepted as (
    select * from events where occurrence = 1
),
bounds as (
    select
        run_id,
        arg_min(collection, (event_at, file_path, line_number)) filter (where event_type = 'run_start')
            as collection,
        min(event_at) filter (where event_type = 'run_start') as started_at,
        max(event_at) filter (where event_type = 'run_start') as last_start_at,
        max(event_at) filter (where event_type = 'run_end') as last_end_at,
        arg_max(status, (event_at, step is not null, step, file_path, line_number))
            filter (where event_type = 'run_end') as final_end_status,
        arg_max(status, (event_at, file_path, line_number)) filter (where event_type = 'run_end') as latest_end_status,
        -- the latest profile counts, and measures nothing when it is not final (wall_seconds NULL)
        arg_max_null(wall_seconds, (event_at, file_path, line_number)) filter (where event_type = 'profile')
            as profile_wall_seconds
    from accepted
    group by run_id
),
ended as (
    select
        *,
        case when last_end_at >= last_start_at then last_end_at end as ended_at
    from bounds
),
epoch_ends as (
    select
        accepted.run_id,
        max(accepted.event_at) as final_epoch_end_at
    from accepted
    inner join ended on accepted.run_id = ended.run_id
    where
        accepted.event_type = 'epoch_end'
        and accepted.event_at >= ended.started_at
        and (ended.ended_at is null or accepted.event_at <= ended.ended_at)
    group by accepted.run_id
),
classified as (
    select
        ended.*,
        epoch_ends.final_epoch_end_at,
        coalesce(ended.ended_at is null and ended.last_end_at < ended.started_at, false) as has_clock_skew
    from ended
    left join epoch_ends on ended.run_id = epoch_ends.run_id
)
select
    run_id,
    collection,
    case
        when has_clock_skew then null
        when ended_at is not null then datediff('microsecond', started_at, ended_at) / 1e6
        else profile_wall_seconds
    end as wall_seconds,
    case when ended_at is not null then datediff('microsecond', started_at, final_epoch_end_at) / 1e6 end
        as pre_tail_seconds,
    datediff('microsecond', final_epoch_end_at, ended_at) / 1e6 as tail_seconds,
    started_at is not null and not has_clock_skew and (
        case
            when ended_at is not null then coalesce(final_end_status, latest_end_status) = 'completed'
            else profile_wall_seconds is not null
        end
    ) as is_analyzed
from classified
""",
    "collections": """
create table collections as
select
    collection,
    count(*) as runs_analyzed,
    avg(wall_seconds) as mean_wall_seconds,
    median(wall_seconds) as median_wall_seconds
from runs
where is_analyzed
group by collection
""",
}


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    """Compute the per-run figures and collection rollup from the logs under raw_dir, each step a
    table in a DuckDB file, and write the timings and the agreement with the marts to out_json."""
    import duckdb

    with tempfile.TemporaryDirectory(prefix="runlens-fair-floor-") as scratch:
        connection = duckdb.connect(str(Path(scratch) / "fair_floor.duckdb"))
        connection.execute("set TimeZone = 'UTC'")
        connection.execute("set enable_progress_bar = false")
        steps = {}
        started = time.perf_counter()
        refresh(connection, str(raw_dir), "raw")
        steps["read"] = time.perf_counter() - started
        for name, sql in STEPS.items():
            step_started = time.perf_counter()
            connection.execute(sql)
            steps[name] = time.perf_counter() - step_started
        seconds = time.perf_counter() - started
        check = compare_with_marts(connection, "runs", "collections", marts_db)
        connection.close()
    out_json.write_text(json.dumps({"query_seconds": seconds, "steps": steps, "check": check}))
