"""Benchmark runlens at scale: `runlens build`, as users run it, against hand-written floors and pandas.

    .venv/bin/python scripts/bench.py [--sizes 1000,10000,100000,200000] [--with-1m] [--engines postgres,spark]
                                      [--spark-runs 10000,100000] [--with-tests] [--watch-runs 3,200000]
                                      [--with-utilization [RUNS]] [--out-dir bench_out]

Needs pandas (pip install -r requirements-bench.txt -c constraints.txt). Every `runlens` command
runs one installation made fresh for the run (<out-dir>/installation: a copy of the dbt project
and an empty cache folder, RUNLENS_CACHE_DIR), with the as-of time pinned (RUNLENS_AS_OF, a month
after the generated runs: benchmark/datasets.py BENCH_AS_OF). The first `runlens build` in a
situation (a fresh database; an already-built one) runs dbt in-process and records dbt's plan in
that cache folder; later builds in the same situation replay the plan in one DuckDB connection.
On this machine it measures:

- the fixed cost (benchmark/fixed_cost.py): `runlens build` in a fresh process (models and data
  tests, unit tests left to `make test`) over 3 generated runs into a fresh database, after one
  first build that parses cold and records the fresh database's plan, --repeats times; the median
  wall time, and the start-up (wall time less the build's elapsed time, from its --timings file);
  then a plain `dbt build` (the dbt command line) over the same 3 runs into a fresh database in a
  fresh process, after one cold-parse warm-up, --repeats times (median); then one new run's file
  and one more `runlens build` (not counted), which records the plan of an already-built database;
- a refresh inside `runlens watch` after one new file, pages included, over 3 runs and over
  200,000 (sharded from 100,000; --watch-runs), --repeats times each after one not counted
  (median);
- `make sample` in the repository from an empty database (RUNLENS_DB at a fresh path) to rendered
  reports, the venv already installed; the median of --repeats runs;
- for each size (runs):
  - generates the logs with scripts/generate_sample.py's scale mode (one file per run below 100k
    runs, shard files of --shard-runs runs from 100k on, a third of them gzipped);
  - the full build: `runlens build` in a fresh process into a fresh database, replaying the plan
    the fixed cost step recorded (the steady state of a user after their first build), timed, with
    the peak memory (max RSS) of the `runlens build` process from /usr/bin/time -v, and whether it
    replayed a plan and its phases (reading, commit, close) from its --timings file; then the same
    command with nothing changed (it runs no model);
  - times report rendering (`runlens report`);
  - times the simple floor (one hand-written DuckDB query over the same files), the fair floor
    (scripts/benchmark/fair_floor.py: the build's own accounting written by hand in DuckDB SQL,
    each step a table) and the pandas baseline
    (json.loads per line, DataFrame, groupby), each in its own process, and checks that their
    per-run wall and tail seconds and the collection rollup (runs, mean and median wall) equal the
    marts' to 1e-6 s (mismatches are reported, never hidden);
  - times two incremental refreshes, each `runlens build` replaying the plan of a built database:
    1% new runs in new files, then two events (a checkpoint and a later run_end) appended to 1% of
    the runs; and checks the refreshed marts against the floor again;
- with --engines, builds the sample and --engine-runs runs on PostgreSQL and Spark
  (scripts/engines/bench_engines.py) and compares their marts with DuckDB's; with --spark-runs, builds
  those sizes (sharded) on Spark only, each against a DuckDB reference; every Spark build's reader
  is timed apart (its seconds and lines read);
- with --with-traces, writes --trace-runs runs (one folder a run) with a profiler trace of about
  --trace-events events each beside their logs (benchmark/trace_data.py), builds them and the same
  runs without traces, each into a fresh database, and runs the traces' floor (benchmark/
  trace_floor.py: one hand-written DuckDB query computing each step's wall, data loading and GPU
  busy time from the same files, checked against fct_run_steps): what the traces add to the build
  against that floor (the target: at most 2x), with peak memory;
- with --with-utilization [RUNS] (default 1,000; `--sizes ""` runs it alone), the utilization step
  (benchmark/utilization.py): RUNS runs of 6 hours with a sample every 15 s of 8 GPUs and the host,
  as `runlens import` writes a W&B run's system metrics, one file per run (about 13,000 lines and
  4 MB a run: 11.5 million GPU samples at 1,000 runs; benchmark/utilization_logs.py), and the same
  runs without their samples; `runlens build` of each into a fresh database (wall time, peak memory,
  the slowest models); the utilization floor (benchmark/utilization_floor.py: one hand-written DuckDB
  query over the files that gives every interval's time-weighted mean GPU utilization, each sample
  held until its GPU's next, at most var utilization_sample_hold_seconds), checked interval by
  interval against fct_run_interval_utilization.mean_gpu_utilization_pct (mismatches reported);
  then run 0's file, written without its last hour, grows by it (with samples: that hour's samples,
  the epoch_end and run_end; without: the two markers), a `runlens build` of each, and the floor
  checked against the refreshed marts. Issue 45's target: (build with samples - without) <= 2x the
  floor's query, and the refresh with samples <= the refresh without + one run's share, which this
  bench takes to be the samples' added build time / RUNS;
- with --with-tests, clones the committed HEAD into the scratch folder and times pytest there with
  .ci/run's environment (PostgreSQL started beforehand, as for --engines).

Issue 29's targets (and issue 45's, from the utilization step) are judged from these figures
(scripts/benchmark/targets.py): met, missed or not run. It writes <out-dir>/benchmarks.json and
benchmarks.md, and the same to docs/ unless --no-docs, and prints a summary. Exit status 1 when a
step failed or a figure disagreed; a missed target is no failure. Timings are never asserted
anywhere; tests/command/test_bench_smoke.py only runs it small.

Internal modes (run as subprocesses so that each is timed and measured alone):
    bench.py _floor RAW_DIR MARTS_DB OUT_JSON
    bench.py _fair_floor RAW_DIR MARTS_DB OUT_JSON
    bench.py _pandas RAW_DIR MARTS_DB OUT_JSON
    bench.py _trace_floor RAW_DIR MARTS_DB OUT_JSON
    bench.py _utilization_floor RAW_DIR MARTS_DB OUT_JSON
    bench.py _spark_build OUT_JSON [scripts/engine_build.py's arguments]  (its reader timed into OUT_JSON)
and, to write the docs again from a saved run (bench_out/benchmarks.json is written after each step):
    bench.py _render BENCHMARKS_JSON OUT_DIR [ENGINES_STATUS]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# run as a script from any folder: the checkout first, so that scripts.* and tests.support.* import by their full names
sys.path.insert(0, str(REPO))

DEFAULT_SIZES = (1_000, 10_000, 100_000, 200_000)
ONE_MILLION = 1_000_000
STEPS = ("fixed_cost", "plain_dbt", "watch", "make_sample", "noop", "render", "fair_floor", "pandas", "refresh")
ENGINES = ("postgres", "spark")
# the internal modes that run one baseline in its own process: mode -> module with run(raw, marts, out)
BASELINE_MODULES = {
    "_floor": "scripts.benchmark.simple_floor",
    "_fair_floor": "scripts.benchmark.fair_floor",
    "_pandas": "scripts.benchmark.pandas_baseline",
    "_trace_floor": "scripts.benchmark.trace_floor",
    "_utilization_floor": "scripts.benchmark.utilization_floor",
}


def run_baseline_mode(mode: str, raw_dir: Path, marts_db: Path, out_json: Path) -> int:
    """One baseline, in this process. A baseline not written yet (NotImplementedError) writes
    {"not_run": why}, which the bench records as "not run"."""
    baseline = importlib.import_module(BASELINE_MODULES[mode])
    try:
        baseline.run(raw_dir, marts_db, out_json)
    except NotImplementedError as error:
        out_json.write_text(json.dumps({"not_run": str(error) or "not implemented"}))
    return 0


def run_spark_build(out_json: Path, argv: list[str]) -> int:
    """scripts/engine_build.py's Spark build, unchanged, with its reader (spark_reader.refresh)
    timed: {"reading_seconds", "read_files", "read_lines"} into out_json (the Spark session is
    started before, untimed)."""
    import time

    from runlens.raw_logs import spark_reader
    from scripts import engine_build

    read = spark_reader.refresh

    def timed(spark, raw_dir: str, database: str):
        started = time.perf_counter()
        summary = read(spark, raw_dir, database)
        seconds = round(time.perf_counter() - started, 3)
        figures = {"reading_seconds": seconds, "read_files": summary.read_files, "read_lines": summary.read_lines}
        out_json.write_text(json.dumps(figures))
        return summary

    spark_reader.refresh = timed
    return engine_build.main(argv)


def parse_args(argv: list[str]) -> argparse.Namespace:
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
        help=f"comma-separated steps to leave out: {', '.join(STEPS)} (the pandas baseline holds every line in "
        "memory: ~1.3 KB a line, so ~13 GB at 1M runs)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="how many times the fixed cost, the plain dbt build, a watch refresh and make sample are measured "
        "(median)",
    )
    parser.add_argument(
        "--engines",
        default="",
        help="comma-separated other engines to build too (postgres, spark; needs requirements-engines.txt and, "
        "for postgres, a server: docs/engines.md): the sample and ENGINE_RUNS runs (about 1M events)",
    )
    parser.add_argument("--engine-runs", type=int, default=100_000, help="runs of the engines' large dataset")
    parser.add_argument(
        "--spark-runs",
        default="",
        help="comma-separated sizes (runs, sharded) to build on Spark only, each against a DuckDB reference, "
        "for the Spark targets (10000,100000: the 100k build, reading linear from 10k to 100k, parity)",
    )
    parser.add_argument(
        "--with-tests",
        action="store_true",
        help="also time pytest on a fresh clone of HEAD with .ci/run's environment (start PostgreSQL first)",
    )
    parser.add_argument(
        "--watch-runs",
        default="3,200000",
        help="comma-separated sizes (runs) of the folders a refresh inside `runlens watch` is measured over",
    )
    parser.add_argument(
        "--with-traces",
        action="store_true",
        help="also build TRACE_RUNS runs with a profiler trace of TRACE_EVENTS events each beside their logs, "
        "against the same runs without traces and a hand-written DuckDB floor over the traces",
    )
    parser.add_argument("--trace-runs", type=int, default=100, help="runs of the traces step (default: %(default)s)")
    parser.add_argument(
        "--trace-events", type=int, default=100_000, help="events per trace of the traces step (default: %(default)s)"
    )
    parser.add_argument(
        "--with-utilization",
        type=int,
        nargs="?",
        const=1_000,
        default=None,
        metavar="RUNS",
        help="also the utilization step: RUNS runs (default 1000) of 6 hours with samples every 15 s of 8 GPUs and "
        "the host, built with and without their samples, against the floor of the samples; about 13,000 lines "
        "(6 MB) a run",
    )
    parser.add_argument(
        "--with-layouts",
        nargs="?",
        const="100000,200000",
        default=None,
        metavar="PER_RUN,FILES_OF_100",
        help="also build the layouts of users' folders: PER_RUN runs written one file per run and FILES_OF_100 runs "
        "in files of 100 runs (default 100000,200000), each against the floors and the pandas script",
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated logs and databases")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shard-runs", type=int, default=10_000)
    parser.add_argument("--fault-rate", type=float, default=0.001)
    args = parser.parse_args(argv)
    args.skip = {s for s in args.skip.split(",") if s}
    unknown = args.skip - set(STEPS)
    if unknown:
        parser.error(f"unknown --skip steps: {', '.join(sorted(unknown))}")
    if args.repeats < 1:
        parser.error("--repeats needs at least 1")
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()} | ({ONE_MILLION} if args.with_1m else set()))
    alone = args.with_utilization is not None or args.with_traces or args.with_layouts is not None
    if (not sizes and not alone) or (sizes and min(sizes) < 1):
        parser.error(
            "--sizes needs positive run counts (it may be empty with --with-utilization, --with-traces or "
            "--with-layouts)"
        )
    args.size_list = sizes
    args.watch_list = sorted({int(s) for s in args.watch_runs.split(",") if s.strip()})
    if args.watch_list and min(args.watch_list) < 1:
        parser.error("--watch-runs needs positive run counts")
    args.engine_list = [e for e in args.engines.split(",") if e]
    unknown = set(args.engine_list) - set(ENGINES)
    if unknown:
        parser.error(f"unknown --engines: {', '.join(sorted(unknown))}")
    if args.with_utilization is not None and args.with_utilization < 1:
        parser.error("--with-utilization needs a positive run count")
    args.layout_runs = {}
    if args.with_layouts is not None:
        from scripts.benchmark.layouts import LAYOUTS

        counts = [s.strip() for s in args.with_layouts.split(",")]
        if len(counts) != len(LAYOUTS) or not all(c.isdigit() and int(c) > 0 for c in counts):
            parser.error("--with-layouts needs two positive run counts: PER_RUN,FILES_OF_100")
        args.layout_runs = {layout.name: int(c) for layout, c in zip(LAYOUTS, counts, strict=True)}
    args.spark_runs_list = sorted({int(s) for s in args.spark_runs.split(",") if s.strip()})
    if args.spark_runs_list and min(args.spark_runs_list) < 1:
        parser.error("--spark-runs needs positive run counts")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_render":
        from scripts.benchmark.runner import rerender

        rerender(Path(argv[1]), Path(argv[2]), argv[3] if len(argv) > 3 else None)
        return 0
    if argv and argv[0] == "_spark_build":
        return run_spark_build(Path(argv[1]), argv[2:])
    if argv and argv[0] in BASELINE_MODULES:
        return run_baseline_mode(argv[0], *(Path(a) for a in argv[1:4]))
    args = parse_args(argv)
    try:
        import pandas  # noqa: F401
    except ImportError:
        print(
            "bench: needs pandas: .venv/bin/pip install -r requirements-bench.txt -c constraints.txt", file=sys.stderr
        )
        return 2
    from scripts.benchmark.runner import run

    return run(args, argv)


if __name__ == "__main__":
    sys.exit(main())
