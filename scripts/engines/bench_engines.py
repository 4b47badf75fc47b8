"""The engines part of scripts/bench.py (`--engines postgres,spark`): the same project built on
PostgreSQL and Spark over the bundled sample and over generated logs of about 1M events, each
build timed, and its marts checked against DuckDB's with the parity checker.

Run inside scripts/bench.py (scripts/benchmark/other_engines.py), which provides the Meter (wall time
and peak memory of a process); each build is `runlens build`'s `dbt build` (REFRESH,
runlens/refresh/build.py) with the engine's target.
For PostgreSQL the raw load (client-side COPY) and the dbt build are timed apart; the server's own
memory is not in the peak figure. Nor is the memory of Spark's JVM (driver heap capped at 2g in
profiles.yml): its peak figure is that of the dbt Python process alone, which the same figure on
the sample and on 1M lines shows.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from runlens.raw_logs.postgres_reader import refresh as read_into_postgres
from runlens.refresh.build import REFRESH as DBT_BUILD
from scripts.engines.connections import postgres_connection, postgres_settings
from scripts.engines.parity import compare, load_marts, read_duckdb, read_postgres, read_spark
from tests.support.pipeline import environment

ENGINES = ("postgres", "spark")


@contextmanager
def as_of_of_the_builds(raw: Path, reference: Path) -> Iterator[None]:
    """The PostgreSQL reader runs in this process and reads the as-of pin from its environment:
    give it the one every dbt build of the bench gets (tests/support/pipeline.py's environment), as
    DuckDB's reference had it; without it, the live runs were judged as of the load's own time."""
    name = "RUNLENS_AS_OF"
    before = os.environ.get(name)
    os.environ[name] = environment(raw, reference)[name]
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def _parity(reference: Path, candidate, engine: str) -> dict:
    """The differences between the engine's marts and DuckDB's; a checker that fails is reported as
    such (differences None), so that it does not lose the figures of the whole benchmark run."""
    marts = load_marts()
    try:
        differences = compare(read_duckdb(reference, marts), candidate(marts), marts, "duckdb", engine)
    except Exception as error:  # any failure of the checker is the finding
        return {"differences": None, "error": f"{type(error).__name__}: {error}"}
    return {"differences": len(differences), "first": [str(d) for d in differences[:5]]}


def _postgres(meter, project: Path, raw: Path, reference: Path, label: str) -> dict:
    schema = f"runlens_bench_{label}"
    settings = postgres_settings(schema)
    connection = postgres_connection(settings)
    if connection is None:
        return {"error": "no PostgreSQL server (RUNLENS_PG_HOST / RUNLENS_PG_PORT)"}
    with connection, connection.cursor() as cursor:
        for name in (schema, schema + "_raw"):
            cursor.execute(f'drop schema if exists "{name}" cascade')
    started = time.perf_counter()
    with as_of_of_the_builds(raw, reference):
        summary = read_into_postgres(connection, str(raw), schema + "_raw")
    load_seconds = round(time.perf_counter() - started, 3)
    connection.close()
    figures = meter.dbt(
        project,
        raw,
        project / "unused.duckdb",
        *DBT_BUILD,
        "--target",
        "postgres",
        env={"RUNLENS_PG_SCHEMA": schema},
    )
    figures["load_seconds"] = load_seconds
    figures["loaded_lines"] = summary.read_lines
    if figures["returncode"] == 0:
        figures["parity"] = _parity(reference, lambda marts: read_postgres(settings, marts), "postgres")
    return figures


def _spark(meter, project: Path, raw: Path, reference: Path, label: str) -> dict:
    warehouse = project / "spark-warehouse"
    shutil.rmtree(warehouse, ignore_errors=True)
    environment = {"RUNLENS_SPARK_WAREHOUSE": str(warehouse), "SPARK_LOCAL_IP": "127.0.0.1"}
    figures = meter.dbt(
        project,
        raw,
        project / "unused.duckdb",
        *DBT_BUILD,
        "--target",
        "spark",
        env=environment,
    )
    if figures["returncode"] == 0:
        figures["parity"] = _parity(reference, lambda marts: read_spark(warehouse, "runlens", marts), "spark")
    shutil.rmtree(warehouse, ignore_errors=True)
    return figures


def bench_engines(engines: list[str], datasets: list[tuple[str, Path, Path, Path]], meter, say) -> list[dict]:
    """For each (label, project, raw folder, DuckDB reference) and engine: build figures and parity."""
    results = []
    for label, project, raw, reference in datasets:
        for engine in engines:
            say(f"{engine}: dbt build over {label}")
            run = _postgres if engine == "postgres" else _spark
            figures = run(meter, project, raw, reference, label)
            results.append({"engine": engine, "dataset": label, **figures})
    return results
