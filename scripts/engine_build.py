"""Build the runlens marts on PostgreSQL or Spark instead of DuckDB (optional engines extra).

    python scripts/engine_build.py postgres [DBT BUILD ARGS...]
    python scripts/engine_build.py spark [DBT BUILD ARGS...]

postgres: first copies the raw files' text from this machine into `<schema>_raw` (scripts/engines/
raw_loader.py, incremental by file fingerprint), then runs `dbt build --target postgres`.
spark: runs `dbt build --target spark`; Spark reads the raw folder itself (a local path, or an
HDFS / object-store URI in RUNLENS_RAW_DIR). Connection settings come from the environment
(profiles.yml names them; README "Other engines"). As scripts/build.py, both leave dbt's unit
tests to `make test`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from engines.connections import postgres_connection, postgres_settings  # noqa: E402
from engines.raw_loader import load  # noqa: E402

from runlens.plural import plural  # noqa: E402
from runlens.raw_logs.as_of import AsOfError, folder_pin  # noqa: E402
from runlens.raw_logs.folder_metadata import MetadataError, collections_vars  # noqa: E402
from runlens.raw_logs.listing import check_raw_dir  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ENGINES = ("postgres", "spark")


def raw_dir() -> str:
    return os.environ.get("RUNLENS_RAW_DIR", str(REPO / "data" / "sample"))


def load_postgres() -> int:
    try:
        folder = check_raw_dir(raw_dir())
        settings = postgres_settings()
    except ValueError as error:  # RawFolderError or a setting: one line that says what to do
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    connection = postgres_connection(settings)
    if connection is None:
        return 2
    raw_schema = os.environ.get("RUNLENS_PG_RAW_SCHEMA", settings.schema + "_raw")
    try:
        summary = load(folder, connection, raw_schema)
    finally:
        connection.close()
    print(
        f"runlens: {plural(summary.files, 'raw file')} in {raw_schema}: {summary.loaded_files} loaded "
        f"({plural(summary.loaded_lines, 'line')}), {summary.removed_files} removed, "
        f"{summary.files - summary.loaded_files} unchanged",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ENGINES:
        print(f"usage: {Path(__file__).name} {{{'|'.join(ENGINES)}}} [dbt build args...]", file=sys.stderr)
        return 2
    engine, dbt_args = argv[0], argv[1:]
    if engine == "postgres":
        status = load_postgres()
        if status != 0:
            return status
    environment = {**os.environ, "RUNLENS_RAW_DIR": raw_dir()}
    try:
        environment.update(folder_pin(raw_dir(), os.environ))  # a folder that pins its own as-of time
        metadata_vars = ["--vars", collections_vars(raw_dir())]  # the folder's collections file
    except (AsOfError, MetadataError) as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    environment.setdefault("DBT_PROFILES_DIR", str(REPO))
    environment.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    if engine == "spark":  # the in-process Spark driver binds to the loopback interface only
        environment.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    dbt = Path(sys.executable).with_name("dbt")
    return subprocess.run(
        [str(dbt), "build", "--exclude-resource-type", "unit_test", "--target", engine, *metadata_vars, *dbt_args],
        cwd=REPO,
        env=environment,
    ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
