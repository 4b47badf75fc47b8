"""Benchmark runlens at scale: the real `dbt build` against a hand-written DuckDB floor and a pandas baseline.

    .venv/bin/python scripts/bench.py [--sizes 1000,10000,100000] [--with-1m] [--engines postgres,spark]
                                      [--out-dir bench_out]

Needs pandas (pip install -r requirements-bench.txt -c constraints.txt). For each size (runs), on
this machine:

- generates the logs with scripts/generate_sample.py's scale mode (one file per run below 100k
  runs, shard files of --shard-runs runs from 100k on, a third of them gzipped);
- builds the marts with the real `dbt build` as scripts/build.py runs it (data tests included,
  unit tests left to `make test`) in a fresh copy of the project
  (tests/pipeline.py), timing it and measuring the peak memory (max RSS) of the dbt process with
  /usr/bin/time -v; then a second `dbt build` with nothing changed (dbt's fixed cost), and
  `dbt run` (models only) into a fresh database;
- times report rendering (scripts/render_report.py);
- times the floor, one hand-written DuckDB query over the same files, and the baseline, a pandas
  script (json.loads per line, DataFrame, groupby), each in its own process, and checks that their
  per-run wall and tail seconds and the collection rollup (runs, mean and median wall) equal the
  marts' to 1e-6 s (mismatches are reported, never hidden);
- times two incremental refreshes: 1% new runs in new files, then two events (a checkpoint and a
  later run_end) appended to 1% of the runs;
- and checks the refreshed marts against the floor again;
- with --engines, builds the sample and --engine-runs runs on PostgreSQL and Spark
  (scripts/engines/bench_engines.py) and compares their marts with DuckDB's.

It writes <out-dir>/benchmarks.json and benchmarks.md, and the same to docs/ unless --no-docs,
and prints a summary. Exit status 1 when a step failed or a figure disagreed. Timings are never
asserted anywhere; tests/test_bench_smoke.py only runs it small.

Internal modes (run as subprocesses so that each is timed and measured alone):
    bench.py _floor RAW_DIR MARTS_DB OUT_JSON
    bench.py _pandas RAW_DIR MARTS_DB OUT_JSON
and, to write the docs again from a saved run (bench_out/benchmarks.json is written after each size):
    bench.py _render BENCHMARKS_JSON OUT_DIR [ENGINES_STATUS]
"""

from __future__ import annotations

import argparse
import csv
import datetime
import glob
import gzip
import importlib.metadata
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "scripts"))

import generate_sample as gen  # noqa: E402
import pipeline  # noqa: E402
from pipeline import copy_project, run_dbt  # noqa: E402

TIME_BIN = Path("/usr/bin/time")
DEFAULT_SIZES = (1_000, 10_000, 100_000)
ONE_MILLION = 1_000_000
SHARDED_FROM = 100_000  # sizes from here on use the sharded layout
TOLERANCE_S = 1e-6
GB = 1e9  # memory targets are in GB = 10^9 bytes
TARGET_SIZE, TARGET_1M = 100_000, ONE_MILLION
REFRESH_SHARE = 0.01
# what scripts/build.py runs: every model and data test; the unit tests run in `make test`
REFRESH = ("build", "--exclude-resource-type", "unit_test")
MARKERS = ("run_start", "checkpoint", "epoch_end", "run_end", "profile")

# ------------------------------------------------------------------------------------------------
# The floor: one hand-written DuckDB query over the raw files, the least work that gives the
# per-run figures of fct_runs and the collection rollup. Exact duplicates need no removal: every
# figure is a min, max or latest value. Invalid lines (bad JSON, bad UTF-8) read as all-NULL rows.
# Simplification: the last epoch_end is not checked to lie between first run_start and final
# run_end (the generated logs never put one outside).

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
        wall_seconds
    from read_json(
        $files,
        format = 'newline_delimited',
        ignore_errors = true,
        columns = {
            run_id: 'VARCHAR', event: 'VARCHAR', ts: 'JSON', collection: 'VARCHAR',
            status: 'VARCHAR', wall_seconds: 'DOUBLE'
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
        arg_max(wall_seconds, event_at) filter (where event = 'profile') as profile_wall
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


def log_files(raw_dir: Path) -> list[str]:
    """The log files the pipeline reads (names starting with _ or . are skipped), sorted."""
    found = []
    for root, dirs, files in os.walk(raw_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [
            os.path.join(root, f)
            for f in sorted(files)
            if f.endswith((".jsonl", ".jsonl.gz")) and not f.startswith(("_", "."))
        ]
    return found


def floor_main(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
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
    out_json.write_text(json.dumps({"seconds": seconds, "check": check}))


# ------------------------------------------------------------------------------------------------
# The baseline a user would write today: json.loads per line, a DataFrame, groupby.


def pandas_figures(raw_dir: Path):
    """Per-run figures and collection rollup with pandas; returns (runs, rollup, phase seconds)."""
    import pandas as pd

    phases = {}
    started = time.perf_counter()
    records = []
    for path in log_files(raw_dir):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as handle:
            for raw in handle:
                try:
                    doc = json.loads(raw)
                except ValueError:  # invalid JSON or invalid UTF-8
                    continue
                if isinstance(doc, dict):
                    records.append(doc)
    phases["read_json_lines"] = time.perf_counter() - started

    started = time.perf_counter()
    frame = pd.DataFrame(records, columns=["run_id", "event", "ts", "collection", "status", "wall_seconds"])
    del records
    valid_id = frame["run_id"].map(lambda value: isinstance(value, str) and value != "").astype(bool)
    frame = frame[valid_id & frame["event"].isin(MARKERS)]
    is_number = frame["ts"].map(lambda value: isinstance(value, (int, float)) and not isinstance(value, bool))
    is_number = is_number.astype(bool)
    micros = pd.Series(pd.NA, index=frame.index, dtype="Int64")
    parsed = pd.to_datetime(frame.loc[~is_number, "ts"], utc=True, format="ISO8601", errors="coerce").dropna()
    micros.loc[parsed.index] = parsed.dt.as_unit("us").astype("int64")
    numbers = frame.loc[is_number, "ts"].astype("float64")
    micros.loc[numbers.index] = (numbers * 1e6).round().astype("int64")
    frame = frame.assign(us=micros).dropna(subset=["us"])
    frame["us"] = frame["us"].astype("int64")
    phases["frame_and_timestamps"] = time.perf_counter() - started

    started = time.perf_counter()
    by_event = {kind: frame[frame["event"] == kind] for kind in MARKERS}

    def latest(kind, column):
        return by_event[kind].sort_values("us", kind="stable").groupby("run_id")[column].last()

    runs = pd.DataFrame(index=pd.Index(frame["run_id"].unique(), name="run_id"))
    starts = by_event["run_start"].sort_values("us", kind="stable").groupby("run_id")
    runs["collection"] = starts["collection"].first()
    runs["first_start"] = starts["us"].min()
    runs["last_start"] = starts["us"].max()
    runs["last_end"] = by_event["run_end"].groupby("run_id")["us"].max()
    runs["last_epoch_end"] = by_event["epoch_end"].groupby("run_id")["us"].max()
    runs["end_status"] = latest("run_end", "status").fillna("completed")
    runs["profile_wall"] = pd.to_numeric(latest("profile", "wall_seconds"), errors="coerce")
    has_end = (runs["last_end"] >= runs["last_start"]).fillna(False).astype(bool)
    has_skew = ~has_end & (runs["last_end"] < runs["first_start"]).fillna(False).astype(bool)
    event_wall = (runs["last_end"] - runs["first_start"]) / 1e6
    runs["wall_seconds"] = event_wall.where(has_end, runs["profile_wall"].where(~has_skew))
    runs["tail_seconds"] = ((runs["last_end"] - runs["last_epoch_end"]) / 1e6).where(has_end)
    completed = ((has_end | has_skew) & (runs["end_status"] == "completed")) | (
        ~has_end & ~has_skew & runs["profile_wall"].notna()
    )
    runs["is_analyzed"] = runs["first_start"].notna() & ~has_skew & completed
    rollup = (
        runs[runs["is_analyzed"]]
        .groupby("collection")["wall_seconds"]
        .agg(runs_analyzed="count", mean_wall_seconds="mean", median_wall_seconds="median")
        .reset_index()
    )
    phases["groupby"] = time.perf_counter() - started
    runs = runs.reset_index()[["run_id", "collection", "wall_seconds", "tail_seconds", "is_analyzed"]]
    return runs, rollup, phases


def pandas_main(raw_dir: Path, marts_db: Path, out_json: Path) -> None:
    started = time.perf_counter()
    import pandas  # noqa: F401 - the import is part of what the script costs

    import_seconds = time.perf_counter() - started
    started = time.perf_counter()
    runs, rollup, phases = pandas_figures(raw_dir)
    seconds = time.perf_counter() - started
    import duckdb

    connection = duckdb.connect()
    connection.register("pandas_runs_frame", runs)
    connection.register("pandas_collections_frame", rollup)
    connection.execute("create temp table pandas_runs as select * from pandas_runs_frame")
    connection.execute("create temp table pandas_collections as select * from pandas_collections_frame")
    check = compare_with_marts(connection, "pandas_runs", "pandas_collections", marts_db)
    out_json.write_text(
        json.dumps({"seconds": seconds, "import_seconds": import_seconds, "phases": phases, "check": check})
    )


# ------------------------------------------------------------------------------------------------
# Agreement with the marts


def compare_with_marts(connection, runs_table: str, collections_table: str, marts_db: Path) -> dict:
    """Compare a candidate's per-run figures and rollup with fct_runs and agg_collection_runtime."""
    connection.execute(f"attach '{marts_db}' as marts (read_only)")

    def differs(a: str, b: str) -> str:
        return f"not ({a} is null and {b} is null or abs({a} - {b}) <= {TOLERANCE_S})"

    runs = connection.execute(f"""
        select
            count(*) filter (where m.run_id is not null and c.run_id is not null) as runs_compared,
            count(*) filter (where c.run_id is null) as missing_in_candidate,
            count(*) filter (where m.run_id is null) as extra_in_candidate,
            count(*) filter (where {differs("c.wall_seconds", "m.wall_seconds")}) as wall_mismatches,
            count(*) filter (where {differs("c.tail_seconds", "m.tail_seconds")}) as tail_mismatches,
            count(*) filter (where c.is_analyzed is distinct from m.is_analyzed) as analyzed_mismatches,
            count(*) filter (where c.collection is distinct from m.collection) as collection_mismatches,
            max(abs(c.wall_seconds - m.wall_seconds)) as max_wall_difference
        from {runs_table} as c
        full outer join marts.fct_runs as m on c.run_id = m.run_id
    """).fetchone()
    names = (
        "runs_compared missing_in_candidate extra_in_candidate wall_mismatches tail_mismatches "
        "analyzed_mismatches collection_mismatches max_wall_difference"
    ).split()
    check = dict(zip(names, runs, strict=True))
    examples = connection.execute(f"""
        select coalesce(c.run_id, m.run_id), c.wall_seconds, m.wall_seconds, c.tail_seconds, m.tail_seconds,
               c.is_analyzed, m.is_analyzed
        from {runs_table} as c
        full outer join marts.fct_runs as m on c.run_id = m.run_id
        where c.run_id is null or m.run_id is null
            or {differs("c.wall_seconds", "m.wall_seconds")} or {differs("c.tail_seconds", "m.tail_seconds")}
            or c.is_analyzed is distinct from m.is_analyzed or c.collection is distinct from m.collection
        order by 1
        limit 5
    """).fetchall()
    collections = connection.execute(f"""
        select
            coalesce(c.collection, m.collection) as collection,
            c.runs_analyzed, m.runs_analyzed,
            c.mean_wall_seconds, m.mean_wall_seconds,
            c.median_wall_seconds, m.median_wall_seconds
        from {collections_table} as c
        full outer join (select * from marts.agg_collection_runtime where runs_analyzed > 0) as m
            on c.collection = m.collection
        order by 1
    """).fetchall()
    collection_rows, collection_mismatches = [], 0
    for name, c_runs, m_runs, c_mean, m_mean, c_median, m_median in collections:
        ok = (
            c_runs == m_runs
            and c_mean is not None
            and m_mean is not None
            and abs(c_mean - m_mean) <= TOLERANCE_S
            and c_median is not None
            and m_median is not None
            and abs(c_median - m_median) <= TOLERANCE_S
        )
        collection_mismatches += not ok
        collection_rows.append(
            {
                "collection": name,
                "runs_analyzed": [c_runs, m_runs],
                "mean_wall_seconds": [c_mean, m_mean],
                "median_wall_seconds": [c_median, m_median],
                "agrees": ok,
            }
        )
    connection.execute("detach marts")
    check["rollup_mismatches"] = collection_mismatches
    check["collections"] = collection_rows
    check["examples"] = [[str(value) for value in row] for row in examples]
    check["ok"] = (
        check["missing_in_candidate"] == 0
        and check["extra_in_candidate"] == 0
        and check["wall_mismatches"] == 0
        and check["tail_mismatches"] == 0
        and check["analyzed_mismatches"] == 0
        and check["collection_mismatches"] == 0
        and collection_mismatches == 0
        and bool(collection_rows)
    )
    return check


# ------------------------------------------------------------------------------------------------
# Measuring a process: wall time here, peak memory from /usr/bin/time -v (or getrusage)

RUSAGE_FALLBACK = """\
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(f"Maximum resident set size (kbytes): {kb}\\n")
sys.exit(code)
"""


class Meter:
    """Runs commands under /usr/bin/time -v (when present, else a getrusage wrapper) and reads back
    the peak resident set size. For dbt, tests/pipeline.py's run_dbt is used unchanged: its dbt
    executable (pipeline.DBT) is pointed at a small wrapper script that execs the measured dbt."""

    def __init__(self, scratch: Path) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        self.rusage_file = scratch / "rusage.txt"
        if TIME_BIN.exists():
            self.method = "/usr/bin/time -v (max RSS of the measured process)"
            self.prefix = [str(TIME_BIN), "-v", "-o"]
        else:
            fallback = scratch / "rusage_wrapper.py"
            fallback.write_text(RUSAGE_FALLBACK)
            self.method = "getrusage(RUSAGE_CHILDREN).ru_maxrss in a wrapper process"
            self.prefix = [sys.executable, str(fallback)]
        self.real_dbt = pipeline.DBT
        self.dbt_wrapper = scratch / "dbt-measured"
        measured = " ".join(shlex.quote(part) for part in self.prefix)
        self.dbt_wrapper.write_text(
            f'#!/bin/sh\nexec {measured} "$RUNLENS_BENCH_RUSAGE" {shlex.quote(str(self.real_dbt))} "$@"\n'
        )
        self.dbt_wrapper.chmod(0o755)

    def _peak_mb(self) -> float | None:
        try:
            text = self.rusage_file.read_text()
        except OSError:
            return None
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        return int(match.group(1)) * 1024 / 1e6 if match else None

    def run(self, argv: list[str], **kwargs) -> dict:
        self.rusage_file.unlink(missing_ok=True)
        started = time.perf_counter()
        result = subprocess.run(
            [*self.prefix, str(self.rusage_file), *argv], capture_output=True, text=True, check=False, **kwargs
        )
        seconds = time.perf_counter() - started
        return self._figures(result, seconds)

    def dbt(self, project: Path, raw_dir: Path, database: Path, *args: str, env: dict | None = None) -> dict:
        self.rusage_file.unlink(missing_ok=True)
        os.environ["RUNLENS_BENCH_RUSAGE"] = str(self.rusage_file)
        pipeline.DBT = self.dbt_wrapper
        try:
            started = time.perf_counter()
            result = run_dbt(project, raw_dir, database, *args, env=env)
            seconds = time.perf_counter() - started
        finally:
            pipeline.DBT = self.real_dbt
            os.environ.pop("RUNLENS_BENCH_RUSAGE", None)
        figures = self._figures(result, seconds)
        results_file = project / "target" / "run_results.json"
        if args[0] in ("build", "run") and results_file.exists():
            figures["dbt_elapsed_seconds"] = json.loads(results_file.read_text()).get("elapsed_time")
        return figures

    def _figures(self, result: subprocess.CompletedProcess, seconds: float) -> dict:
        figures = {"seconds": round(seconds, 3), "peak_rss_mb": self._peak_mb(), "returncode": result.returncode}
        if result.returncode != 0:
            figures["error"] = (result.stdout[-3000:] + "\n" + result.stderr[-3000:]).strip()
        return figures


# ------------------------------------------------------------------------------------------------
# One size


def write_collections_csv(path: Path) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["collection", "title", "baseline_collection", "design_url", "results_url"])
        for collection, _, _ in gen.SCALE_COLLECTIONS:
            baseline = gen.SCALE_BASELINES.get(collection, "")
            writer.writerow([collection, collection.replace("/", " "), baseline, "", ""])
    return path


def line_counts(marts_db: Path) -> dict:
    import duckdb

    with duckdb.connect(str(marts_db), read_only=True) as connection:
        row = connection.execute(
            "select count(*), sum(physical_lines), sum(lines_read), sum(accepted), sum(duplicates), "
            "sum(rejected), sum(blank_lines) from agg_file_data_quality"
        ).fetchone()
        runs = connection.execute("select count(*), count(*) filter (where is_analyzed) from fct_runs").fetchone()
    keys = ("files_in_marts", "physical_lines", "lines_read", "accepted", "duplicates", "rejected", "blank_lines")
    counts = {key: int(value or 0) for key, value in zip(keys, row, strict=True)}
    counts["runs_in_marts"], counts["runs_analyzed"] = int(runs[0]), int(runs[1])
    return counts


def where_time_goes(run_results: Path, top: int = 10) -> dict:
    """Execution time by node type and the slowest models and tests of one dbt invocation."""
    data = json.loads(run_results.read_text())
    totals: dict[str, float] = {}
    nodes = []
    for result in data["results"]:
        kind = result["unique_id"].split(".", 1)[0]
        totals[kind] = totals.get(kind, 0.0) + result["execution_time"]
        # model.<project>.<name>; test.<project>.<name>.<hash>
        nodes.append((result["execution_time"], kind, result["unique_id"].split(".")[2]))
    nodes.sort(reverse=True)
    return {
        "dbt_elapsed_seconds": data.get("elapsed_time"),
        "execution_seconds_by_type": {kind: round(value, 3) for kind, value in sorted(totals.items())},
        "node_counts": {kind: sum(1 for n in nodes if n[1] == kind) for kind in sorted(totals)},
        "top_models": [{"name": n[2], "seconds": round(n[0], 3)} for n in nodes if n[1] == "model"][:top],
        "top_tests": [{"name": n[2], "seconds": round(n[0], 3)} for n in nodes if n[1] in ("test", "unit_test")][:5],
    }


def append_events(raw_dir: Path, layout: str, runs: int, seed: int, fault_rate: float, shard_runs: int) -> dict:
    """Append a checkpoint and a later run_end to 1% of the runs. Per-run layout: to those runs' own
    files. Sharded layout: the runs are taken from the first shard (plain text), and the lines are
    appended to that shard, so the whole shard is read again."""
    count = max(1, round(runs * REFRESH_SHARE))
    if layout == "per-run":
        step = max(1, runs // count)
        indices = list(range(0, runs, step))[:count]
    else:
        indices = list(range(min(count, shard_runs, runs)))
    touched: dict[Path, list[bytes]] = {}
    for index in indices:
        run = gen.scale_run(seed, index, fault_rate)
        head = f'{{"run_id": "{run.run_id}", "event": "'
        checkpoint_at, end_at = run.end_ms + 60_000, run.end_ms + 120_000
        lines = [
            f'{head}checkpoint", "ts": {gen.scale_ts(checkpoint_at, run.style)}, "step": 1600}}'.encode(),
            f'{head}run_end", "ts": {gen.scale_ts(end_at, run.style)}, "status": "completed"}}'.encode(),
        ]
        path = raw_dir / run.per_run_path if layout == "per-run" else raw_dir / gen.SHARD_DIR / "shard-00000000.jsonl"
        touched.setdefault(path, []).extend(lines)
    for path, lines in touched.items():
        if path.name.endswith(".gz"):  # a gzip file is rewritten whole with the lines added
            data = gzip.decompress(path.read_bytes()) + b"\n".join(lines) + b"\n"
            path.write_bytes(gzip.compress(data, compresslevel=6, mtime=0))
        else:
            with path.open("ab") as handle:
                handle.write(b"\n".join(lines) + b"\n")
    how = (
        "2 events appended to each run's own file"
        if layout == "per-run"
        else f"2 events per run appended to {gen.SHARD_DIR}/shard-00000000.jsonl (the whole shard is reloaded)"
    )
    return {"runs_touched": len(indices), "files_touched": len(touched), "lines_appended": 2 * len(indices), "how": how}


def bench_size(runs: int, args, meter: Meter, work: Path) -> dict:
    layout = "sharded" if runs >= SHARDED_FROM else "per-run"
    size_dir = work / f"runs_{runs}"
    if size_dir.exists():
        shutil.rmtree(size_dir)
    size_dir.mkdir(parents=True)
    raw, database = size_dir / "raw", size_dir / "runlens.duckdb"
    entry: dict = {"runs": runs, "layout": layout, "shard_runs": args.shard_runs if layout == "sharded" else None}
    failures: list[str] = []

    def step(name: str, figures: dict) -> dict:
        entry[name] = figures
        if figures.get("returncode", 0) != 0:
            failures.append(name)
        return figures

    def say(text: str) -> None:
        print(f"[{runs} runs] {text}", flush=True)

    entry["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    say(f"generating ({layout})")
    step(
        "generate",
        meter.run(
            [
                sys.executable,
                str(REPO / "scripts" / "generate_sample.py"),
                "--runs", str(runs), "--layout", layout, "--shard-runs", str(args.shard_runs),
                "--fault-rate", str(args.fault_rate), "--seed", str(args.seed), "--out", str(raw),
            ]
        ),
    )  # fmt: skip
    files = log_files(raw)
    entry["files"] = len(files)
    entry["gzip_files"] = sum(1 for f in files if f.endswith(".gz"))
    entry["bytes_on_disk"] = sum(os.path.getsize(f) for f in files)

    seed_csv = write_collections_csv(size_dir / "collections.csv")
    project = copy_project(size_dir / "project", seed_csv)
    say("dbt parse (cold, once)")
    step("dbt_parse", meter.dbt(project, raw, database, "parse"))
    say("dbt build (full)")
    build = step("dbt_build", meter.dbt(project, raw, database, *REFRESH))
    if build["returncode"] != 0:
        say("dbt build FAILED; skipping the rest of this size")
        entry["failures"] = failures
        return entry
    shutil.copy2(project / "target" / "run_results.json", size_dir / "run_results_build.json")
    entry["where_time_goes"] = where_time_goes(size_dir / "run_results_build.json")
    entry.update(line_counts(database))

    if "noop" not in args.skip:
        say("dbt build (nothing changed: fixed cost)")
        step("dbt_build_noop", meter.dbt(project, raw, database, *REFRESH))
        shutil.copy2(project / "target" / "run_results.json", size_dir / "run_results_noop.json")
        entry["where_time_goes_noop"] = where_time_goes(size_dir / "run_results_noop.json")
    if "run" not in args.skip:
        say("dbt run (models only, fresh database)")
        run_project = copy_project(size_dir / "project_run", seed_csv)
        run_db = size_dir / "run_only.duckdb"
        run_dbt(run_project, raw, run_db, "parse")
        run_dbt(run_project, raw, run_db, "seed")
        step("dbt_run", meter.dbt(run_project, raw, run_db, "run"))
        run_db.unlink(missing_ok=True)
    if "render" not in args.skip:
        say("render reports")
        step(
            "render_report",
            meter.run(
                [
                    sys.executable,
                    str(REPO / "scripts" / "render_report.py"),
                    "--db", str(database), "--out", str(size_dir / "reports"),
                ]
            ),
        )  # fmt: skip

    for mode in ("floor", "pandas"):
        if mode in args.skip:
            continue
        say(f"{mode}")
        out_json = size_dir / f"{mode}.json"
        figures = meter.run([sys.executable, __file__, f"_{mode}", str(raw), str(database), str(out_json)])
        figures["process_seconds"] = figures.pop("seconds")
        if figures["returncode"] == 0:
            figures.update(json.loads(out_json.read_text()))
            if not figures["check"]["ok"]:
                failures.append(f"{mode}_check")
        step(mode, figures)

    if "refresh" not in args.skip:
        added = max(1, round(runs * REFRESH_SHARE))
        say(f"refresh: {added} new runs")
        gen.write_scale(raw, args.seed, runs, added, layout, args.shard_runs, args.fault_rate)
        how = "new per-run files" if layout == "per-run" else "one new shard file"
        refresh = step("refresh_new_runs", meter.dbt(project, raw, database, *REFRESH))
        refresh.update({"runs_added": added, "how": how})
        shutil.copy2(project / "target" / "run_results.json", size_dir / "run_results_refresh_new.json")
        say("refresh: events appended to 1% of the runs")
        appended = append_events(raw, layout, runs, args.seed, args.fault_rate, args.shard_runs)
        refresh = step("refresh_appends", meter.dbt(project, raw, database, *REFRESH))
        refresh.update(appended)
        say("check the refreshed marts against the floor")
        out_json = size_dir / "floor_after_refresh.json"
        figures = meter.run([sys.executable, __file__, "_floor", str(raw), str(database), str(out_json)])
        if figures["returncode"] == 0:
            figures.update(json.loads(out_json.read_text()))
            if not figures["check"]["ok"]:
                failures.append("refresh_check")
        step("refresh_check", figures)

    entry["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    entry["ratios"] = ratios(entry)
    entry["failures"] = failures
    if not args.keep:
        for path in (raw, database, size_dir / "project", size_dir / "project_run"):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return entry


def seconds_of(entry: dict, name: str, key: str = "seconds") -> float | None:
    figures = entry.get(name)
    if not figures or figures.get("returncode", 0) != 0:
        return None
    return figures.get(key)


def ratios(entry: dict) -> dict:
    build = seconds_of(entry, "dbt_build")
    noop = seconds_of(entry, "dbt_build_noop")
    floor = seconds_of(entry, "floor")
    pandas_total = seconds_of(entry, "pandas", "process_seconds")
    refresh_new = seconds_of(entry, "refresh_new_runs")
    out = {}
    if build is not None and noop is not None:
        out["build_minus_fixed_seconds"] = round(build - noop, 3)
        if floor:
            out["build_minus_fixed_over_floor"] = round((build - noop) / floor, 2)
    if build and pandas_total:
        out["pandas_over_build"] = round(pandas_total / build, 2)
    if refresh_new is not None and noop is not None and build is not None:
        budget = noop + 0.1 * build
        out["refresh_new_budget_seconds"] = round(budget, 3)
        out["refresh_new_over_budget"] = round(refresh_new / budget, 2)
    return out


# ------------------------------------------------------------------------------------------------
# Targets, machine, report


def targets(sizes: list[dict]) -> list[dict]:
    by_runs = {entry["runs"]: entry for entry in sizes}
    rows = []

    def add(target: str, size: int, figure, threshold: str, met) -> None:
        if size not in by_runs:
            rows.append({"target": target, "size": size, "figure": None, "threshold": threshold, "verdict": "not run"})
        else:
            verdict = "not measured" if figure is None else ("met" if met else "missed")
            rows.append({"target": target, "size": size, "figure": figure, "threshold": threshold, "verdict": verdict})

    entry = by_runs.get(TARGET_SIZE, {})
    ratio = entry.get("ratios", {})
    value = ratio.get("build_minus_fixed_over_floor")
    add(
        "full build minus dbt's fixed cost, against the floor",
        TARGET_SIZE,
        value,
        "<= 1.5x",
        value is not None and value <= 1.5,
    )
    value = ratio.get("pandas_over_build")
    add(
        "end to end against the pandas script (pandas / build)",
        TARGET_SIZE,
        value,
        ">= 3x",
        value is not None and value >= 3,
    )
    value = (entry.get("dbt_build") or {}).get("peak_rss_mb")
    add(
        "peak memory of the full build (MB)",
        TARGET_SIZE,
        value,
        "< 1500 MB",
        value is not None and value < 1.5 * GB / 1e6,
    )
    value = ratio.get("refresh_new_over_budget")
    add(
        "refresh after 1% new runs, against fixed cost + 10% of the full build",
        TARGET_SIZE, value, "<= 1.0x of the budget", value is not None and value <= 1.0,
    )  # fmt: skip
    big = by_runs.get(TARGET_1M, {})
    build = big.get("dbt_build") or {}
    value = build.get("peak_rss_mb") if build.get("returncode") == 0 else None
    add(
        "1M runs: build completes, peak memory (MB)",
        TARGET_1M,
        value,
        "< 4000 MB",
        value is not None and value < 4 * GB / 1e6,
    )
    return rows


def read_first(path: str, pattern: str) -> str | None:
    try:
        with open(path) as handle:
            for line in handle:
                if re.match(pattern, line):
                    return line.split(":", 1)[1].strip() if ":" in line else line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def machine() -> dict:
    mem_kb = read_first("/proc/meminfo", r"MemTotal")
    versions = {}
    for package in ("duckdb", "dbt-core", "dbt-duckdb", "pandas", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
        "cpu_model": read_first("/proc/cpuinfo", r"model name"),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gb": round(int(mem_kb.split()[0]) / 1e6, 1) if mem_kb else None,
        "os": (read_first("/etc/os-release", r"PRETTY_NAME=") or platform.system()) + f", kernel {platform.release()}",
        "python": platform.python_version(),
        "versions": versions,
        "dbt_threads": int(os.environ.get("RUNLENS_THREADS", "2")),
    }


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def check_text(figures: dict | None) -> str:
    if not figures or "check" not in figures:
        return "–"
    check = figures["check"]
    if check["ok"]:
        return f"agree ({check['runs_compared']:,} runs, {len(check['collections'])} collections)"
    parts = [
        f"{check[key]} {key.replace('_', ' ')}"
        for key in (
            "missing_in_candidate",
            "extra_in_candidate",
            "wall_mismatches",
            "tail_mismatches",
            "analyzed_mismatches",
            "collection_mismatches",
            "rollup_mismatches",
        )
        if check.get(key)
    ]
    return "DISAGREE: " + ", ".join(parts or ["no collections compared"])


def size_rows(entry: dict) -> list[tuple[str, str]]:
    def measured(name: str, extra: str = "") -> str:
        figures = entry.get(name)
        if not figures:
            return "skipped"
        if figures.get("returncode", 0) != 0:
            return f"FAILED (exit {figures['returncode']})"
        text = f"{fmt(figures.get('process_seconds', figures.get('seconds')))} s"
        if figures.get("dbt_elapsed_seconds") is not None:
            text += f" (dbt's elapsed time {fmt(figures['dbt_elapsed_seconds'])} s)"
        if figures.get("peak_rss_mb") is not None:
            text += f", peak {fmt(figures['peak_rss_mb'], 0)} MB"
        return text + extra

    ratio = entry.get("ratios", {})
    layout = entry["layout"] + (f" ({entry['shard_runs']:,} runs a shard)" if entry.get("shard_runs") else "")
    new_how = (entry.get("refresh_new_runs") or {}).get("how", "")
    append_how = (entry.get("refresh_appends") or {}).get("how", "")
    rows = [
        ("layout", layout),
        ("files (gzip)", f"{fmt(entry.get('files'))} ({fmt(entry.get('gzip_files'))})"),
        ("bytes on disk", f"{fmt((entry.get('bytes_on_disk') or 0) / 1e6)} MB"),
        ("lines: read / accepted / duplicates / rejected",
         f"{fmt(entry.get('lines_read'))} / {fmt(entry.get('accepted'))} / {fmt(entry.get('duplicates'))} / "
         f"{fmt(entry.get('rejected'))}"),
        ("runs in fct_runs (analysed)", f"{fmt(entry.get('runs_in_marts'))} ({fmt(entry.get('runs_analyzed'))})"),
        ("generate logs", measured("generate")),
        ("dbt parse, cold (once; not in the figures below)", measured("dbt_parse")),
        ("**dbt build, full** (models + tests)", measured("dbt_build")),
        ("dbt build, nothing changed (**fixed cost**)", measured("dbt_build_noop")),
        ("full build minus fixed cost", f"{fmt(ratio.get('build_minus_fixed_seconds'))} s"),
        ("dbt run, models only, fresh database", measured("dbt_run")),
        ("render reports", measured("render_report")),
        ("**floor**: one DuckDB query (query time; process incl. startup)",
         f"{fmt(seconds_of(entry, 'floor'), 2)} s; " + measured("floor")),
        ("**pandas** script (compute time; process incl. import)",
         f"{fmt(seconds_of(entry, 'pandas'), 2)} s; " + measured("pandas")),
        ("refresh: 1% new runs", measured("refresh_new_runs", f" ({new_how})")),
        ("refresh: events appended to 1% of the runs", measured("refresh_appends", f" ({append_how})")),
        ("ratio: (build - fixed) / floor", fmt(ratio.get("build_minus_fixed_over_floor"), 2)),
        ("ratio: pandas process / build", fmt(ratio.get("pandas_over_build"), 2)),
        ("ratio: refresh 1% new / (fixed + 10% of build)", fmt(ratio.get("refresh_new_over_budget"), 2)),
        ("floor figures = marts", check_text(entry.get("floor"))),
        ("pandas figures = marts", check_text(entry.get("pandas"))),
        ("refreshed marts = floor over the changed logs", check_text(entry.get("refresh_check"))),
        ("load average before / after", f"{entry.get('load_average_before')} / {entry.get('load_average_after')}"),
    ]  # fmt: skip
    return rows


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [
        "# runlens benchmarks",
        "",
        "Generated by `scripts/bench.py` (do not edit by hand; re-run it). Raw figures: "
        "[benchmarks.json](benchmarks.json).",
        f"Command: `{report['command']}`",
        "",
        "## Machine",
        "",
        f"- date (UTC): {m['date_utc']}",
        f"- CPU: {m['cpu_model']}, {m['logical_cpus']} logical CPUs ({m['usable_cpus']} usable); "
        "shared with other work, see the load averages",
        f"- memory: {m['memory_gb']} GB",
        f"- OS: {m['os']}",
        f"- Python {m['python']}, DuckDB {m['versions']['duckdb']}, dbt-core {m['versions']['dbt-core']}, "
        f"dbt-duckdb {m['versions']['dbt-duckdb']}, pandas {m['versions']['pandas']}; dbt threads: {m['dbt_threads']}",
        f"- peak memory: {report['memory_method']}",
        "",
        "## Targets",
        "",
        "| target | size (runs) | figure | threshold | verdict |",
        "|---|---|---|---|---|",
    ]
    for row in report["targets"]:
        lines.append(
            f"| {row['target']} | {row['size']:,} | {fmt(row['figure'], 2)} | {row['threshold']} | {row['verdict']} |"
        )
    lines += ["", "## Figures per size", ""]
    for entry in report["sizes"]:
        lines += [f"### {entry['runs']:,} runs", "", "| | |", "|---|---|"]
        lines += [f"| {name} | {value} |" for name, value in size_rows(entry)]
        if entry.get("failures"):
            lines += ["", f"Failed steps or checks: {', '.join(entry['failures'])}."]
        lines.append("")
    largest = next((e for e in reversed(report["sizes"]) if e.get("where_time_goes")), None)
    if largest:
        lines += [
            "## Where the time goes",
            "",
            f"From `target/run_results.json` at {largest['runs']:,} runs, the largest size. dbt's elapsed time "
            "leaves out process start, project loading and parsing; the execution seconds are summed per node, "
            f"so with {m['dbt_threads']} threads they can exceed the elapsed time.",
            "",
        ]
        invocations = [("full `dbt build`", "where_time_goes", "dbt_build")]
        invocations.append(
            ("`dbt build` with nothing changed (the fixed cost)", "where_time_goes_noop", "dbt_build_noop")
        )
        for title, key, step_name in invocations:
            wtg = largest.get(key)
            if not wtg:
                continue
            wall = (largest.get(step_name) or {}).get("seconds")
            lines += [
                f"### {title}: {fmt(wall)} s wall, dbt's elapsed time {fmt(wtg['dbt_elapsed_seconds'])} s",
                "",
                "| node type | nodes | execution seconds |",
                "|---|---|---|",
            ]
            counts = wtg["node_counts"]
            lines += [
                f"| {kind} | {counts[kind]} | {fmt(v, 2)} |" for kind, v in wtg["execution_seconds_by_type"].items()
            ]
            lines += ["", "| slowest models | seconds |", "|---|---|"]
            lines += [f"| {n['name']} | {fmt(n['seconds'], 2)} |" for n in wtg["top_models"]]
            lines += ["", "| slowest tests | seconds |", "|---|---|"]
            lines += [f"| {n['name']} | {fmt(n['seconds'], 2)} |" for n in wtg["top_tests"]]
            lines.append("")
    if report.get("engines"):
        lines += engine_markdown(report["engines"])
    elif report.get("engines_status"):
        lines += ["## Other engines", "", report["engines_status"], ""]
    lines += [
        "## Method",
        "",
        "- Logs: `scripts/generate_sample.py --runs N` (scale mode): 4 collections x 6 tasks, ~10 lines a run "
        "(run_start, 7 checkpoints, epoch_end, run_end; 25% of the ended runs also a profile; 2% resumed, "
        "1.5% failed, 1.5% without run_end, half of those profiled), 4 timestamp styles, and a fraction "
        f"{report['config']['fault_rate']} of extra faulty lines (truncated JSON, invalid UTF-8, exact duplicates). "
        f"One file per run below {SHARDED_FROM:,} runs (every 50th gzipped); from {SHARDED_FROM:,} on, shard files "
        f"of {report['config']['shard_runs']:,} runs, every third gzipped. Seed {report['config']['seed']}.",
        "- dbt: the real project copied to a scratch folder (tests/pipeline.py) with a collections seed that "
        "names baselines (so the comparison marts have work). `dbt parse` runs once first, so every timed "
        "invocation starts with a warm partial parse, as in a user's project folder. The full build is "
        "what scripts/build.py runs, `dbt build --exclude-resource-type unit_test` (seed, models, data tests; "
        "the unit tests, whose inputs are fixed, run in `make test`); the fixed cost is a second `dbt build` with "
        "nothing changed (incremental models read nothing); `dbt run` builds the models alone into a fresh "
        "database (seeded first, untimed).",
        "- Times are wall-clock seconds of the whole process (start-up included) unless a row says otherwise; "
        "the floor and pandas rows also give the time of the computation alone, measured inside the process.",
        "- Floor: one DuckDB query (`FLOOR_SQL` in scripts/bench.py) over the same files with `read_json(..., "
        "ignore_errors = true)`, per-run figures into a temp table, then the collection rollup. It needs no "
        "duplicate removal (every figure is a min, max or latest value) and does not check that the last "
        "epoch_end lies inside the run (the logs never put one outside). Pandas: json.loads per line, a "
        "DataFrame of the needed keys, vectorised timestamp parsing, groupby. With one file per run, "
        "read_json's cost per file (~0.2-0.5 ms) dominates the floor, so it is no tight lower bound there; "
        "the targets are judged on the sharded layout.",
        "- Checks: per-run wall_seconds, tail_seconds, collection and is_analyzed against `fct_runs`, and runs "
        "analysed, mean and median wall per collection against `agg_collection_runtime`, to "
        f"{TOLERANCE_S} s. After the two refreshes the refreshed marts are checked against the floor again.",
        "- Refreshes: 1% new runs (new files: per-run files, or one new shard), then a checkpoint and a "
        "later run_end appended to 1% of the runs (their own files; in the sharded layout all to the first "
        "shard, which is then reloaded whole: the pipeline is incremental by file).",
        "- Targets are judged at 100,000 runs (about 1.0M lines: ~10.1 lines a run, not 12) and, with "
        "`--with-1m`, at 1,000,000 runs. Memory: GB = 10^9 bytes.",
        "",
    ]
    return "\n".join(lines)


def summary(report: dict) -> str:
    header = ["runs", "lines", "build s", "fixed s", "run s", "floor s", "pandas s", "ref.new s", "ref.app s",
              "render s", "peak MB", "checks"]  # fmt: skip
    rows = [header]
    for e in report["sizes"]:
        checks = all(
            (e.get(name) or {}).get("check", {}).get("ok", name not in e)
            for name in ("floor", "pandas", "refresh_check")
        )
        rows.append(
            [
                fmt(e["runs"]),
                fmt(e.get("lines_read")),
                fmt(seconds_of(e, "dbt_build")),
                fmt(seconds_of(e, "dbt_build_noop")),
                fmt(seconds_of(e, "dbt_run")),
                fmt(seconds_of(e, "floor"), 2),
                fmt(seconds_of(e, "pandas", "process_seconds"), 2),
                fmt(seconds_of(e, "refresh_new_runs")),
                fmt(seconds_of(e, "refresh_appends")),
                fmt(seconds_of(e, "render_report")),
                fmt((e.get("dbt_build") or {}).get("peak_rss_mb"), 0),
                "agree" if checks and not e.get("failures") else "FAIL: " + ",".join(e.get("failures", [])),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    text = ["  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    for row in report["targets"]:
        text.append(f"target: {row['target']} @ {row['size']:,} runs: {fmt(row['figure'], 2)} ({row['threshold']}) "
                    f"-> {row['verdict']}")  # fmt: skip
    return "\n".join(text)


def bench_other_engines(args, meter: Meter, work: Path) -> dict:
    """Build the sample and about 1M events on each of args.engine_list, DuckDB as the reference."""
    from engines.bench_engines import bench_engines

    def say(text: str) -> None:
        print(f"[engines] {text}", flush=True)

    folder = work / "engines"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sample_project = copy_project(folder / "sample_project")
    large_raw = folder / "raw"
    say(f"generating {args.engine_runs:,} runs (sharded)")
    gen_figures = meter.run(
        [
            sys.executable, str(REPO / "scripts" / "generate_sample.py"), "--runs", str(args.engine_runs),
            "--layout", "sharded", "--shard-runs", str(args.shard_runs), "--fault-rate", str(args.fault_rate),
            "--seed", str(args.seed), "--out", str(large_raw),
        ]
    )  # fmt: skip
    large_project = copy_project(folder / "large_project", write_collections_csv(folder / "collections.csv"))
    datasets, duckdb_rows = [], []
    for label, project, raw in (
        ("sample", sample_project, REPO / "data" / "sample"),
        ("large", large_project, large_raw),
    ):
        reference = project / "reference.duckdb"
        run_dbt(project, raw, reference, "parse")
        say(f"duckdb: dbt build over {label}")
        figures = meter.dbt(project, raw, reference, *REFRESH)
        duckdb_rows.append({"engine": "duckdb", "dataset": label, **figures})
        datasets.append((label, project, raw, reference))
    lines = {label: line_counts(reference)["lines_read"] for label, _, _, reference in datasets}
    results = duckdb_rows + bench_engines(args.engine_list, datasets, meter, say)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return {"large_runs": args.engine_runs, "lines_read": lines, "generate": gen_figures, "builds": results}


def engine_markdown(engines: dict) -> list[str]:
    lines = [
        "## Other engines",
        "",
        f"The same project on each engine (`--engines`), over the bundled sample ({engines['lines_read']['sample']:,} "
        f"lines) and over {engines['large_runs']:,} generated runs ({engines['lines_read']['large']:,} lines, the "
        "sharded layout), every build with its data tests (unit tests run in `make test`). PostgreSQL 15 runs on "
        "the same machine (its memory is not in the peak); its raw load (client-side COPY) is timed apart from "
        "the dbt build. "
        "Spark is local pyspark (dbt-spark's session method) on the same 2 cores (its JVM's memory, driver heap "
        "capped at 2g, is not in the peak either): it rebuilds everything on "
        "every build, and its point is scaling out, not one machine. Parity: every mart against DuckDB's, row by "
        "row (scripts/parity.py).",
        "",
        "| engine | dataset | raw load s | dbt build s | peak MB (dbt process) | parity with DuckDB |",
        "|---|---|---|---|---|---|",
    ]
    for row in engines["builds"]:
        if row.get("returncode", 1) != 0:
            verdict = "build FAILED"
        elif row["engine"] == "duckdb":
            verdict = "(reference)"
        else:
            differences = row.get("parity", {}).get("differences")
            verdict = "identical" if differences == 0 else f"{differences} differences"
        lines.append(
            f"| {row['engine']} | {row['dataset']} | {fmt(row.get('load_seconds'))} | {fmt(row.get('seconds'))} | "
            f"{fmt(row.get('peak_rss_mb'), 0)} | {verdict} |"
        )
    return [*lines, ""]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default=",".join(str(s) for s in DEFAULT_SIZES), help="runs per size, comma-separated"
    )
    parser.add_argument("--with-1m", action="store_true", help="add 1,000,000 runs")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench_out", help="scratch folder and results")
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md and .json")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated steps to leave out: noop, run, render, refresh, pandas (the pandas baseline holds "
        "every line in memory: ~1.3 KB a line, so ~13 GB at 1M runs)",
    )
    parser.add_argument(
        "--engines",
        default="",
        help="comma-separated other engines to build too (postgres, spark; needs requirements-engines.txt and, "
        "for postgres, a server: README 'Other engines'): the sample and ENGINE_RUNS runs (about 1M events)",
    )
    parser.add_argument("--engine-runs", type=int, default=100_000, help="runs of the engines' large dataset")
    parser.add_argument("--keep", action="store_true", help="keep the generated logs and databases")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shard-runs", type=int, default=10_000)
    parser.add_argument("--fault-rate", type=float, default=0.001)
    args = parser.parse_args(argv)
    args.skip = {s for s in args.skip.split(",") if s}
    unknown = args.skip - {"noop", "run", "render", "refresh", "pandas"}
    if unknown:
        parser.error(f"unknown --skip steps: {', '.join(sorted(unknown))}")
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()} | ({ONE_MILLION} if args.with_1m else set()))
    if not sizes or min(sizes) < 1:
        parser.error("--sizes needs positive run counts")
    args.size_list = sizes
    args.engine_list = [e for e in args.engines.split(",") if e]
    unknown = set(args.engine_list) - {"postgres", "spark"}
    if unknown:
        parser.error(f"unknown --engines: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_render":
        # re-render the docs from a saved run: bench.py _render BENCHMARKS_JSON OUT_DIR [ENGINES_STATUS]
        report = json.loads(Path(argv[1]).read_text())
        if len(argv) > 3:
            report["engines_status"] = argv[3]
        Path(argv[2]).mkdir(parents=True, exist_ok=True)
        (Path(argv[2]) / "benchmarks.json").write_text(json.dumps(report, indent=2) + "\n")
        (Path(argv[2]) / "benchmarks.md").write_text(markdown(report))
        return 0
    if argv and argv[0] in ("_floor", "_pandas"):
        raw_dir, marts_db, out_json = (Path(a) for a in argv[1:4])
        (floor_main if argv[0] == "_floor" else pandas_main)(raw_dir, marts_db, out_json)
        return 0
    args = parse_args(argv)
    try:
        import pandas  # noqa: F401
    except ImportError:
        print(
            "bench: needs pandas: .venv/bin/pip install -r requirements-bench.txt -c constraints.txt", file=sys.stderr
        )
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    work = args.out_dir.resolve()
    meter = Meter(work / "_meter")
    report = {
        "command": "scripts/bench.py " + " ".join(shlex.quote(a) for a in argv),
        "machine": machine(),
        "memory_method": meter.method,
        "config": {
            "sizes": args.size_list,
            "seed": args.seed,
            "shard_runs": args.shard_runs,
            "fault_rate": args.fault_rate,
            "sharded_from_runs": SHARDED_FROM,
            "skipped_steps": sorted(args.skip),
            "tolerance_seconds": TOLERANCE_S,
        },
        "sizes": [],
    }
    for runs in args.size_list:
        report["sizes"].append(bench_size(runs, args, meter, work))
        report["targets"] = targets(report["sizes"])
        (work / "benchmarks.json").write_text(json.dumps(report, indent=2) + "\n")
    report["targets"] = targets(report["sizes"])
    if args.engine_list:
        report["engines"] = bench_other_engines(args, meter, work)
    text = markdown(report)
    outputs = [work] if args.no_docs else [work, REPO / "docs"]
    for folder in outputs:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "benchmarks.json").write_text(json.dumps(report, indent=2) + "\n")
        (folder / "benchmarks.md").write_text(text)
    print(summary(report))
    print("wrote " + ", ".join(str(folder / "benchmarks.md") for folder in outputs))
    failed = [f"{e['runs']}: {', '.join(e['failures'])}" for e in report["sizes"] if e.get("failures")]
    if failed:
        print("bench: failed steps or disagreeing figures: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
