"""The simple floor: one hand-written DuckDB query over the raw files, the least work that gives the
per-run figures of fct_runs and the collection rollup. Exact duplicates need no removal: every
figure is a min, max or latest value. Invalid lines (bad JSON, bad UTF-8) read as all-NULL rows.
Simplification: the last epoch_end is not checked to lie between first run_start and final
run_end (the generated logs never put one outside).

Run in its own measured process (`scripts/bench.py _floor RAW_DIR MARTS_DB OUT_JSON`); writes
{"query_seconds": the query alone, "check": agreement with the marts}.
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

from scripts.benchmark.agreement import compare_with_marts

FLOOR_SQL = """
create or replace temp table floor_runs as
with

events as (
    select
        run_id,
        event,
        case json_type(ts)
            when 'VARCHAR' then (try_cast(ts ->> '$' as timestamptz) at time zone 'UTC')::timestamp
            when 'DOUBLE' then try(make_timestamp(round(ts::double * 1000000)::bigint))
            when 'BIGINT' then try(make_timestamp(ts::bigint * 1000000))
            when 'UBIGINT' then try(make_timestamp(ts::bigint * 1000000))
        end as event_at,
        collection,
        status,
        -- the latest profile counts, and measures nothing when it is not final
        case when coalesce(final::varchar, '') != 'false' then wall_seconds end as wall_seconds
    from read_json(
        $files,
        format = 'newline_delimited',
        ignore_errors = true,
        columns = {
            run_id: 'VARCHAR', event: 'VARCHAR', ts: 'JSON', collection: 'VARCHAR',
            status: 'VARCHAR', wall_seconds: 'DOUBLE', final: 'JSON'
        }
    )
    where run_id <> '' and event in ('run_start', 'checkpoint', 'epoch_end', 'run_end', 'profile')
),

runs as (
    select
        run_id,
        arg_min(collection, event_at) filter (where event = 'run_start') as collection,
        min(event_at) filter (where event = 'run_start') as first_start,
        max(event_at) filter (where event = 'run_start') as last_start,
        max(event_at) filter (where event = 'run_end') as last_end,
        coalesce(arg_max(status, event_at) filter (where event = 'run_end'), 'completed') as end_status,
        max(event_at) filter (where event = 'epoch_end') as last_epoch_end,
        arg_max_null(wall_seconds, event_at) filter (where event = 'profile') as profile_wall
    from events
    where event_at is not null
    group by run_id
),

flagged as (
    select
        *,
        coalesce(last_end >= last_start, false) as has_end,
        coalesce(not (last_end >= last_start) and last_end < first_start, false) as has_skew
    from runs
),

classified as (
    select
        *,
        case
            when has_end or has_skew then case when end_status = 'completed' then 'completed' else 'failed' end
            when profile_wall is not null then 'completed'
            else 'incomplete'
        end as status
    from flagged
)

select
    run_id,
    collection,
    case
        when has_end then datediff('microsecond', first_start, last_end) / 1e6
        when not has_skew then profile_wall
    end as wall_seconds,
    case when has_end then datediff('microsecond', last_epoch_end, last_end) / 1e6 end as tail_seconds,
    first_start is not null and not has_skew and status = 'completed' as is_analyzed
from classified
"""


FLOOR_ROLLUP_SQL = """
create or replace temp table floor_collections as
select collection, count(*) as runs_analyzed, avg(wall_seconds) as mean_wall_seconds,
       median(wall_seconds) as median_wall_seconds
from floor_runs
where is_analyzed
group by collection
"""


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    import duckdb

    connection = duckdb.connect()
    connection.execute("set TimeZone = 'UTC'")
    files = [str(raw_dir / "**" / "*.jsonl"), str(raw_dir / "**" / "*.jsonl.gz")]
    files = [pattern for pattern in files if glob.glob(pattern, recursive=True)]
    started = time.perf_counter()
    connection.execute(FLOOR_SQL, {"files": files})
    connection.execute(FLOOR_ROLLUP_SQL)
    seconds = time.perf_counter() - started
    check = compare_with_marts(connection, "floor_runs", "floor_collections", marts_db)
    out_json.write_text(json.dumps({"query_seconds": seconds, "check": check}))
