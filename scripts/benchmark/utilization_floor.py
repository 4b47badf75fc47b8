"""The utilization floor: one hand-written DuckDB query over the raw files that reads every sample
and gives every interval's time-weighted mean GPU utilization (def_utilization): the intervals run
from marker to marker of a run (run_start, checkpoint, epoch_end, run_end, in time order); each GPU
sample holds until its GPU's next sample, at most var utilization_sample_hold_seconds later; the
mean is the utilization times the seconds each sample holds inside the interval over those
seconds, and an interval with fewer than var utilization_min_samples samples per sampled GPU taken
inside it has none. Simplifications the generated logs allow (benchmark/utilization_logs.py):
one rank and host, no restart (no downtime), no bad or duplicate line, no sample after the run's
end.

Run in its own measured process (`scripts/bench.py _utilization_floor RAW_DIR MARTS_DB OUT_JSON`);
writes {"query_seconds": the query alone, "intervals", "check": agreement with
fct_run_interval_utilization.mean_gpu_utilization_pct}.
"""

from __future__ import annotations

import glob
import json
import time
from pathlib import Path

import yaml

from tests.support.pipeline import REPO

TOLERANCE_PCT = 1e-6  # percentage points
MARKERS = ("run_start", "checkpoint", "epoch_end", "run_end")

FLOOR_SQL = """
create or replace temp table floor_intervals as
with

lines as (
    select
        run_id,
        event,
        ts::timestamptz::timestamp as event_at,
        gpu,
        measurements.gpu_utilization as gpu_utilization
    from read_json(
        $files,
        format = 'newline_delimited',
        columns = {
            run_id: 'VARCHAR', event: 'VARCHAR', ts: 'VARCHAR', gpu: 'BIGINT',
            measurements: 'STRUCT(gpu_utilization DOUBLE)'
        }
    )
),

markers as (
    select
        run_id,
        event_at as started_at,
        lead(event_at) over (partition by run_id order by event_at) as ended_at,
        row_number() over (partition by run_id order by event_at) as interval_index
    from lines
    where list_contains($markers, event)
),

intervals as (
    select * from markers where ended_at is not null
),

samples as (
    select
        run_id,
        gpu,
        event_at as sampled_at,
        gpu_utilization,
        least(
            lead(event_at) over (partition by run_id, gpu order by event_at),
            event_at + to_seconds($hold_seconds)
        ) as held_until
    from lines
    where event = 'sample' and gpu is not null and gpu_utilization is not null
),

sampled_gpus as (
    select run_id, count(distinct gpu) as gpus from samples group by run_id
),

held_overlaps as (
    select
        intervals.run_id,
        intervals.interval_index,
        samples.gpu_utilization,
        samples.sampled_at >= intervals.started_at and samples.sampled_at < intervals.ended_at as is_inside,
        datediff(
            'microsecond',
            greatest(samples.sampled_at, intervals.started_at),
            least(samples.held_until, intervals.ended_at)
        ) / 1e6 as overlap_seconds
    from intervals
    inner join samples
        on intervals.run_id = samples.run_id
        and samples.sampled_at < intervals.ended_at
        and samples.held_until > intervals.started_at
),

sums as (
    select
        run_id,
        interval_index,
        count(*) filter (where is_inside) as inside_samples,
        sum(gpu_utilization * overlap_seconds) as integral,
        sum(overlap_seconds) as seconds
    from held_overlaps
    group by run_id, interval_index
)

select
    intervals.run_id,
    intervals.interval_index,
    case
        when sums.inside_samples >= $min_samples * sampled_gpus.gpus and sums.seconds > 0
            then sums.integral / sums.seconds
    end as mean_gpu_utilization_pct
from intervals
left join sums on intervals.run_id = sums.run_id and intervals.interval_index = sums.interval_index
left join sampled_gpus on intervals.run_id = sampled_gpus.run_id
"""

CHECK_SQL = """
with

marts as (
    select run_id, interval_index, mean_gpu_utilization_pct from marts.fct_run_interval_utilization
),

paired as (
    select
        coalesce(floor_intervals.run_id, marts.run_id) as run_id,
        coalesce(floor_intervals.interval_index, marts.interval_index) as interval_index,
        floor_intervals.run_id is null as is_missing_in_floor,
        marts.run_id is null as is_missing_in_marts,
        floor_intervals.mean_gpu_utilization_pct as floor_pct,
        marts.mean_gpu_utilization_pct as marts_pct
    from floor_intervals
    full outer join marts
        on floor_intervals.run_id = marts.run_id and floor_intervals.interval_index = marts.interval_index
),

judged as (
    select
        *,
        not is_missing_in_floor and not is_missing_in_marts and (
            (floor_pct is null) != (marts_pct is null) or abs(floor_pct - marts_pct) > $tolerance
        ) as is_mismatch
    from paired
)

select
    count(*) filter (where not is_missing_in_floor and not is_missing_in_marts) as intervals_compared,
    count(*) filter (where marts_pct is not null and floor_pct is not null) as means_compared,
    count(*) filter (where is_missing_in_floor) as missing_in_floor,
    count(*) filter (where is_missing_in_marts) as missing_in_marts,
    count(*) filter (where is_mismatch) as mean_mismatches,
    max(abs(floor_pct - marts_pct)) as max_abs_difference_pct,
    list(
        {'run_id': run_id, 'interval_index': interval_index, 'floor': floor_pct, 'marts': marts_pct}
        order by run_id, interval_index
    ) filter (where is_mismatch or is_missing_in_floor or is_missing_in_marts)[1:5] as examples
from judged
"""


def project_vars() -> dict:
    """The hold and the minimum samples the marts use (dbt_project.yml's vars)."""
    project = yaml.safe_load((REPO / "dbt_project.yml").read_text())["vars"]
    return {
        "hold_seconds": project["utilization_sample_hold_seconds"],
        "min_samples": project["utilization_min_samples"],
    }


def compare_with_marts(connection, marts_db: Path) -> dict:
    """floor_intervals against the marts' fct_run_interval_utilization, interval by interval."""
    connection.execute(f"attach '{marts_db}' as marts (read_only)")
    try:
        cursor = connection.execute(CHECK_SQL, {"tolerance": TOLERANCE_PCT})
        names = [column[0] for column in cursor.description]
        check = dict(zip(names, cursor.fetchone(), strict=True))
    finally:
        connection.execute("detach marts")
    counts = ("missing_in_floor", "missing_in_marts", "mean_mismatches")
    check["ok"] = check["intervals_compared"] > 0 and all(check[name] == 0 for name in counts)
    check["tolerance_pct"] = TOLERANCE_PCT
    return check


def run(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    import duckdb

    connection = duckdb.connect()
    connection.execute("set TimeZone = 'UTC'")
    files = sorted(glob.glob(str(raw_dir / "**" / "*.jsonl"), recursive=True))
    parameters = {"files": files, "markers": list(MARKERS), **project_vars()}
    started = time.perf_counter()
    connection.execute(FLOOR_SQL, parameters)
    seconds = time.perf_counter() - started
    intervals = connection.execute("select count(*) from floor_intervals").fetchone()[0]
    check = compare_with_marts(connection, marts_db)
    out_json.write_text(json.dumps({"query_seconds": seconds, "intervals": intervals, "check": check}, default=str))
