"""The same marts on other engines (--engines postgres,spark): the bundled sample and a generated
dataset of about 1M events built on DuckDB (the reference) and on each engine
(scripts/engines/bench_engines.py), every build timed and each engine's marts checked against
DuckDB's."""

from __future__ import annotations

from pathlib import Path

from build import REFRESH as DBT_BUILD
from pipeline import REPO, copy_project, run_dbt

from benchmark.datasets import LogSettings, generate_command, line_counts
from benchmark.measure import Meter
from benchmark.scratch import fresh_folder, remove


def measure(
    meter: Meter, folder: Path, engines: list[str], large_runs: int, settings: LogSettings, keep: bool = False
) -> dict:
    """Build the sample and `large_runs` runs on each of `engines`, DuckDB as the reference."""
    from engines.bench_engines import bench_engines

    def say(text: str) -> None:
        print(f"[engines] {text}", flush=True)

    fresh_folder(folder)
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
        reference = project / "reference.duckdb"
        run_dbt(project, raw, reference, "parse")
        say(f"duckdb: dbt build over {label}")
        figures = meter.dbt(project, raw, reference, *DBT_BUILD)
        duckdb_rows.append({"engine": "duckdb", "dataset": label, **figures})
        datasets.append((label, project, raw, reference))
    lines = {label: line_counts(reference)["lines_read"] for label, _, _, reference in datasets}
    results = duckdb_rows + bench_engines(engines, datasets, meter, say)
    if not keep:
        remove(folder)
    return {"large_runs": large_runs, "lines_read": lines, "generate": gen_figures, "builds": results}
