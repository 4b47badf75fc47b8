"""What a typed reading of the samples would cost, beside the utilization floor: a measurement for
the design of the samples' path, not a step of the benchmark (docs/performance.md, "The least a
typed path costs").

    .venv/bin/python -m scripts.benchmark.utilization_lower_bound RAW_DIR [REPEATS]

RAW_DIR: a folder the utilization step generated (`scripts/bench.py --with-utilization RUNS --keep`
leaves `<out>/utilization_RUNS/with_samples`). Each repeat runs, one after the other in this
process, the floor's query (utilization_floor.FLOOR_SQL, in memory, as the benchmark times it) and
two typed paths into a fresh database file, as a build writes its tables:
- `plain`: DuckDB's read_json reads every line as one typed struct (the sample's fields and
  measurements) into a table of samples; then each GPU sample's span until its GPU's next sample
  (a table), then every interval's time-weighted mean (a table). No line numbers, no checks, no
  units, no duplicates: less than any build that keeps what the input contract asks for.
- `numbered`: the same, each sample with its file and line (the row's place in its file, which
  read_json keeps in order: its rowid less its file's first, checked to be one block per file),
  as the raw tables and fct_rejected_lines need them.
- `lines`: the other half of a typed design (docs/performance.md): the same files read as lines
  (read_blob, split at each newline, as runlens/raw_logs/duckdb_reader.py reads them), counted and
  not stored, the least a reader pays to keep the lines that are not samples.
The intervals are made beforehand and not timed (the build without samples makes them too).
Prints each repeat's seconds and the medians, and each path's median over the floor's.
"""

from __future__ import annotations

import glob
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scripts.benchmark.utilization_floor import FLOOR_SQL, MARKERS, project_vars

TYPED_COLUMNS = (
    "columns = {run_id: 'VARCHAR', event: 'VARCHAR', ts: 'VARCHAR', rank: 'BIGINT', gpu: 'BIGINT', "
    "host: 'VARCHAR', measurements: 'STRUCT(gpu_utilization DOUBLE, gpu_memory_used DOUBLE, "
    "gpu_power DOUBLE, cpu_utilization DOUBLE)'}"
)

INTERVALS_SQL = """
create table intervals as
select * from (
    select
        run_id,
        ts::timestamptz::timestamp as started_at,
        lead(ts::timestamptz::timestamp) over (partition by run_id order by ts::timestamptz) as ended_at,
        row_number() over (partition by run_id order by ts::timestamptz) as interval_index
    from read_json($files, format = 'newline_delimited', columns = {run_id: 'VARCHAR', event: 'VARCHAR', ts: 'VARCHAR'})
    where list_contains($markers, event)
)
where ended_at is not null
"""

LINES_SQL = f"""
select
    filename as file_path,
    run_id,
    event,
    coalesce(rank, 0) as rank,
    host,
    gpu as gpu_index,
    ts::timestamptz::timestamp as sampled_at,
    measurements.gpu_utilization as gpu_utilization,
    measurements.gpu_memory_used as gpu_memory_used,
    measurements.gpu_power as gpu_power,
    measurements.cpu_utilization as cpu_utilization
from read_json($files, format = 'newline_delimited', filename = true, {TYPED_COLUMNS})
"""

PLAIN_SQL = f"create table samples as select * exclude (event) from ({LINES_SQL}) where event = 'sample'"

# Each line's place in its file from the rows' order: read_json writes a file's rows one after the
# other and in the file's order, so a row's line is its rowid less its file's first rowid, plus 1
# (a hash aggregate and a join, cheaper than a window sorting 13 million rows); CONTIGUITY_SQL
# checks the premise (every file's rows one block) before the numbers are used.
NUMBERED_SQL = (
    f"create temp table typed_lines as {LINES_SQL};\n"
    "create temp table file_rows as select file_path, min(rowid) as first_rowid, max(rowid) as last_rowid, "
    "count(*) as lines from typed_lines group by file_path;\n"
    "create table samples as select typed_lines.file_path, typed_lines.rowid - file_rows.first_rowid + 1 "
    "as line_number, typed_lines.* exclude (file_path, event) from typed_lines "
    "inner join file_rows on typed_lines.file_path = file_rows.file_path where event = 'sample';\n"
    "drop table typed_lines"
)

CONTIGUITY_SQL = "select count(*) from file_rows where last_rowid - first_rowid + 1 != lines"

SPANS_SQL = """
create table spans as
select
    run_id,
    rank,
    host,
    gpu_index,
    sampled_at,
    gpu_utilization,
    least(
        lead(sampled_at) over (partition by run_id, rank, host, gpu_index order by sampled_at),
        sampled_at + to_seconds($hold_seconds)
    ) as held_until
from samples
where gpu_utilization is not null
"""

MEANS_SQL = """
create table means as
with held_overlaps as (
    select
        intervals.run_id,
        intervals.interval_index,
        spans.gpu_utilization,
        spans.sampled_at >= intervals.started_at and spans.sampled_at < intervals.ended_at as is_inside,
        datediff(
            'microsecond', greatest(spans.sampled_at, intervals.started_at), least(spans.held_until, intervals.ended_at)
        ) / 1e6 as overlap_seconds
    from intervals
    inner join spans
        on intervals.run_id = spans.run_id
        and spans.sampled_at < intervals.ended_at
        and spans.held_until > intervals.started_at
)
select
    run_id,
    interval_index,
    count(*) filter (where is_inside) as inside_samples,
    sum(gpu_utilization * overlap_seconds) / sum(overlap_seconds) as mean_gpu_utilization_pct
from held_overlaps
group by run_id, interval_index
"""


LINES_ONLY_SQL = """
select count(*), sum(length(line))
from (select unnest(string_split(decode(content), chr(10))) as line from read_blob($files))
"""


def lines_seconds(files: list[str]) -> float:
    import duckdb

    connection = duckdb.connect()
    started = time.perf_counter()
    connection.execute(LINES_ONLY_SQL, {"files": files}).fetchall()
    seconds = time.perf_counter() - started
    connection.close()
    return seconds


def floor_seconds(files: list[str]) -> float:
    import duckdb

    connection = duckdb.connect()
    connection.execute("set TimeZone = 'UTC'")
    started = time.perf_counter()
    connection.execute(FLOOR_SQL, {"files": files, "markers": list(MARKERS), **project_vars()})
    seconds = time.perf_counter() - started
    connection.close()
    return seconds


def typed_path_seconds(files: list[str], numbered: bool, folder: Path) -> dict[str, float]:
    """The typed path's steps into a fresh database file in folder: seconds per step."""
    import duckdb

    database = folder / "typed.duckdb"
    for stale in (database, folder / "typed.duckdb.wal"):
        stale.unlink(missing_ok=True)
    connection = duckdb.connect(str(database))
    connection.execute("set TimeZone = 'UTC'")
    connection.execute(INTERVALS_SQL, {"files": files, "markers": list(MARKERS)})
    connection.execute("checkpoint")
    steps = {}
    started = time.perf_counter()
    for statement in (NUMBERED_SQL if numbered else PLAIN_SQL).split(";\n"):
        connection.execute(statement, {"files": files} if "$files" in statement else {})
    steps["read and store"] = time.perf_counter() - started
    if numbered and connection.execute(CONTIGUITY_SQL).fetchone()[0]:
        raise SystemExit("a file's rows are not one block in read_json's order: the line numbers would be wrong")
    for name, sql, parameters in (
        ("spans", SPANS_SQL, {"hold_seconds": project_vars()["hold_seconds"]}),
        ("means", MEANS_SQL, {}),
        ("checkpoint", "checkpoint", {}),
    ):
        started = time.perf_counter()
        connection.execute(sql, parameters)
        steps[name] = time.perf_counter() - started
    connection.close()
    return steps


def main(argv: list[str]) -> int:
    if not argv or not Path(argv[0]).is_dir():
        print("usage: python -m scripts.benchmark.utilization_lower_bound RAW_DIR [REPEATS]", file=sys.stderr)
        return 2
    files = sorted(glob.glob(os.path.join(argv[0], "**", "*.jsonl"), recursive=True))
    repeats = int(argv[1]) if len(argv) > 1 else 3
    totals: dict[str, list[float]] = {"floor": [], "plain": [], "numbered": [], "lines": []}
    with tempfile.TemporaryDirectory(prefix="runlens-lower-bound-") as scratch:
        for repeat in range(1, repeats + 1):
            totals["floor"].append(floor_seconds(files))
            print(f"repeat {repeat}: floor {totals['floor'][-1]:.2f} s", flush=True)
            for path in ("plain", "numbered"):
                steps = typed_path_seconds(files, path == "numbered", Path(scratch))
                totals[path].append(sum(steps.values()))
                shown = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in steps.items())
                print(f"repeat {repeat}: {path} {totals[path][-1]:.2f} s ({shown})", flush=True)
            totals["lines"].append(lines_seconds(files))
            print(f"repeat {repeat}: lines {totals['lines'][-1]:.2f} s", flush=True)
    medians = {name: statistics.median(values) for name, values in totals.items()}
    print(f"{len(files)} files; medians of {repeats}: " + ", ".join(f"{k} {v:.2f} s" for k, v in medians.items()))
    for path in ("plain", "numbered", "lines"):
        print(f"{path} / floor: {medians[path] / medians['floor']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
