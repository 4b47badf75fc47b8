"""The traces step's floor (`bench.py _trace_floor RAW_DIR MARTS_DB OUT_JSON`): one hand-written
DuckDB query over the same trace files that computes each profiled step's breakdown as the marts
do for these traces (def_profiled_steps, def_data_loading, def_gpu_time): every trace's complete
events read by read_json; its `ProfilerStep#N` steps but the last (cut short); each step's wall
time, its DataLoader `__next__` time, and the GPU events its host events launched (by correlation
id), merged into busy islands. Written in the same run, so the build's cost of the traces is
measured against what a hand-written query needs for the same reading and accounting.

The check: per trace, the steps, their summed wall, data loading and GPU busy seconds equal the
marts' (fct_run_steps) to 1e-6 s.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb

TOLERANCE_S = 1e-6
EVENT = (
    'STRUCT(ph VARCHAR, cat VARCHAR, "name" VARCHAR, ts DOUBLE, dur DOUBLE, '
    "args STRUCT(correlation BIGINT, stream BIGINT))[]"
)

QUERY = """
create table per_trace as
with
documents as (
    select filename, unnest(traceEvents) as event
    from read_json(?, columns = {{traceEvents: '{event}'}}, filename = true, maximum_object_size = 2000000000)
),
events as (
    select filename, event.cat as cat, event.name as name, ceil(event.ts) as start_us,
        floor(event.ts + event.dur) as end_us, event.args.correlation as correlation, event.args.stream as stream
    from documents
    where event.ph = 'X' and event.cat != 'Trace'
),
annotated_steps as (
    select filename, name as step, start_us, end_us,
        row_number() over (partition by filename order by start_us desc) as from_last
    from events
    where cat = 'user_annotation' and name like 'ProfilerStep#%'
),
steps as (select filename, step, start_us, end_us from annotated_steps where from_last > 1),
host as (
    select events.filename, steps.step, events.name, events.cat, events.correlation, events.start_us,
        least(events.end_us, steps.end_us) as cut_end_us
    from events
    inner join steps
        on events.filename = steps.filename and events.start_us >= steps.start_us and events.start_us < steps.end_us
    where events.stream is null
),
loading as (
    select filename, step, sum(cut_end_us - start_us) as loading_us
    from host
    where name like 'enumerate(DataLoader)%.__next__'
    group by filename, step
),
gpu as (
    select host.filename, host.step, events.start_us, events.end_us
    from events
    inner join host
        on events.filename = host.filename and events.correlation = host.correlation and host.cat = 'cuda_runtime'
    where events.stream is not null
),
ordered as (
    select *, max(end_us) over (
        partition by filename, step order by start_us, end_us rows between unbounded preceding and 1 preceding
    ) as prior_end_us
    from gpu
),
islands as (
    select *, sum(case when prior_end_us is null or start_us > prior_end_us then 1 else 0 end) over (
        partition by filename, step order by start_us, end_us rows unbounded preceding
    ) as island
    from ordered
),
busy as (
    select filename, step, sum(island_end - island_start) as busy_us
    from (
        select filename, step, island, min(start_us) as island_start, max(end_us) as island_end
        from islands group by filename, step, island
    )
    group by filename, step
)
select steps.filename, count(*) as steps, sum(steps.end_us - steps.start_us) / 1e6 as wall_seconds,
    sum(coalesce(loading.loading_us, 0)) / 1e6 as data_loading_seconds,
    sum(coalesce(busy.busy_us, 0)) / 1e6 as gpu_busy_seconds
from steps
left join loading on steps.filename = loading.filename and steps.step = loading.step
left join busy on steps.filename = busy.filename and steps.step = busy.step
group by steps.filename
"""


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    connection = duckdb.connect()
    started = time.perf_counter()
    connection.execute(QUERY.format(event=EVENT), [str(raw_dir / "*" / "trace" / "*.pt.trace.json")])
    seconds = time.perf_counter() - started
    floor = {
        Path(filename).relative_to(raw_dir).as_posix(): figures
        for filename, *figures in connection.execute("select * from per_trace").fetchall()
    }
    marts = duckdb.connect(str(marts_db), read_only=True)
    built = {
        file_path: figures
        for file_path, *figures in marts.execute(
            "select file_path, count(*), sum(wall_seconds), sum(data_loading_seconds), sum(gpu_busy_seconds)"
            " from fct_run_steps group by file_path"
        ).fetchall()
    }
    mismatches = [
        {"trace": path, "floor": floor.get(path), "marts": built.get(path)}
        for path in sorted(set(floor) | set(built))
        if floor.get(path) is None
        or built.get(path) is None
        or floor[path][0] != built[path][0]
        or any(abs(a - b) > TOLERANCE_S for a, b in zip(floor[path][1:], built[path][1:], strict=True))
    ]
    check = {"ok": not mismatches, "traces": len(floor), "mismatches": mismatches[:5], "mismatched": len(mismatches)}
    out_json.write_text(json.dumps({"query_seconds": round(seconds, 3), "check": check}))
