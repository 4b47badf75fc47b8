"""The same marts on other engines: with --engines postgres,spark, the bundled sample and a
generated dataset of about 1M events built on DuckDB (the reference) and on each engine
(scripts/engines/bench_engines.py); with --spark-runs, generated datasets of those sizes (sharded)
built on DuckDB and on Spark only, for the Spark targets. Every build is timed and each engine's
marts checked against DuckDB's. A Spark build runs as scripts/engine_build.py runs it, inside
`bench.py _spark_build`, which also times its reader (SparkReadingMeter): the figures then hold the
reader's seconds and the lines it read."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from runlens.refresh.build import REFRESH as DBT_BUILD
from scripts.benchmark.datasets import LogSettings, generate_command, line_counts
from scripts.benchmark.measure import Meter
from scripts.benchmark.scratch import fresh_folder, remove
from tests.support.pipeline import REPO, copy_project, dbt_process, in_own_process, run_dbt

BENCH = REPO / "scripts" / "bench.py"
ENGINE_BUILD = REPO / "scripts" / "engine_build.py"


class SparkReadingMeter:
    """The Meter bench_engines is given: a Spark build (a process of its own, scripts/engine_build.py)
    runs measured (wall time, peak memory of that process) inside `bench.py _spark_build`, which
    records the reader's seconds and lines read; any other build is the Meter's own."""

    def __init__(self, meter: Meter, scratch: Path) -> None:
        self.meter = meter
        self.reading = scratch / "spark_reading.json"

    def dbt(self, project: Path, raw_dir: Path, database: Path, *args: str, env: dict | None = None) -> dict:
        if not in_own_process(args):
            return self.meter.dbt(project, raw_dir, database, *args, env=env)
        process = dbt_process(project, raw_dir, database, *args, env=env)
        command = process["args"]
        assert Path(command[1]) == ENGINE_BUILD, command
        self.reading.unlink(missing_ok=True)
        figures = self.meter.run(
            [sys.executable, str(BENCH), "_spark_build", str(self.reading), *command[2:]],
            cwd=process["cwd"],
            env=process["env"],
        )
        if self.reading.exists():
            figures.update(json.loads(self.reading.read_text()))
        return figures


def reference_build(meter: Meter, project: Path, raw: Path) -> tuple[Path, dict]:
    """The DuckDB reference of a dataset: parsed first (untimed), then `dbt build` timed."""
    reference = project / "reference.duckdb"
    run_dbt(project, raw, reference, "parse")
    return reference, meter.dbt(project, raw, reference, *DBT_BUILD)


def spark_size(meter: Meter, timed: SparkReadingMeter, folder: Path, runs: int, settings: LogSettings, say) -> dict:
    """`runs` generated runs (sharded) built on DuckDB (the reference) and on Spark, parity checked."""
    from scripts.engines.bench_engines import bench_engines

    fresh_folder(folder)
    raw = folder / "raw"
    say(f"generating {runs:,} runs (sharded) for Spark")
    entry: dict = {"runs": runs, "generate": meter.run(generate_command(runs, "sharded", raw, settings))}
    if entry["generate"]["returncode"] != 0:
        return entry
    project = copy_project(folder / "project")
    say(f"duckdb: dbt build over {runs:,} runs")
    reference, figures = reference_build(meter, project, raw)
    entry["duckdb"] = {"engine": "duckdb", "dataset": f"{runs} runs", **figures}
    if figures["returncode"] != 0:
        return entry
    entry["lines_read"] = line_counts(reference)["lines_read"]
    (entry["spark"],) = bench_engines(["spark"], [(f"{runs} runs", project, raw, reference)], timed, say)
    return entry


def measure(
    meter: Meter,
    folder: Path,
    engines: list[str],
    large_runs: int,
    settings: LogSettings,
    keep: bool = False,
    spark_runs: Sequence[int] = (),
) -> dict:
    """Build the sample and `large_runs` runs on each of `engines`, DuckDB as the reference; then
    each of `spark_runs` on Spark only."""
    from scripts.engines.bench_engines import bench_engines

    def say(text: str) -> None:
        print(f"[engines] {text}", flush=True)

    fresh_folder(folder)
    timed = SparkReadingMeter(meter, folder)
    result: dict = {}
    if engines:
        sample_project = copy_project(folder / "sample_project")
        large_raw = folder / "raw"
        say(f"generating {large_runs:,} runs (sharded)")
        gen_figures = meter.run(generate_command(large_runs, "sharded", large_raw, settings))
        large_project = copy_project(folder / "large_project")
        datasets, duckdb_rows = [], []
        for label, project, raw in (
            ("sample", sample_project, REPO / "data" / "sample"),
            ("large", large_project, large_raw),
        ):
            say(f"duckdb: dbt build over {label}")
            reference, figures = reference_build(meter, project, raw)
            duckdb_rows.append({"engine": "duckdb", "dataset": label, **figures})
            datasets.append((label, project, raw, reference))
        lines = {label: line_counts(reference)["lines_read"] for label, _, _, reference in datasets}
        results = duckdb_rows + bench_engines(engines, datasets, timed, say)
        result.update({"large_runs": large_runs, "lines_read": lines, "generate": gen_figures, "builds": results})
        if not keep:
            remove(sample_project, large_raw, large_project)
    if spark_runs:
        result["spark_sizes"] = []
        for runs in spark_runs:
            result["spark_sizes"].append(spark_size(meter, timed, folder / f"spark_{runs}", runs, settings, say))
            if not keep:
                remove(folder / f"spark_{runs}")
    if not keep:
        remove(folder)
    return result
