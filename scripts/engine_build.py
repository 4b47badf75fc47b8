"""Build the runlens marts on PostgreSQL or Spark instead of DuckDB (optional engines extra).

    python scripts/engine_build.py postgres [--with-unit-tests] [DBT BUILD ARGS...]
    python scripts/engine_build.py spark [--with-unit-tests] [DBT BUILD ARGS...]

First the engine's reader brings the raw tables in step with the raw folder (RUNLENS_RAW_DIR,
default the bundled sample; runlens/raw_logs/raw_tables.py): on PostgreSQL from this machine into
`<schema>_raw` (runlens/raw_logs/postgres_reader.py, incremental by file); on Spark by Spark's own
file reader (runlens/raw_logs/spark_reader.py, in the Spark session dbt then builds in). Then
`dbt build --target <engine>` runs in this process. Connection settings come from the environment
(profiles.yml names them; docs/engines.md). As `runlens build`, it leaves dbt's unit tests
to `make test` unless --with-unit-tests.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# run as a script from any folder: the checkout first, so that scripts.* import by their full names
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runlens.plural import plural  # noqa: E402
from runlens.raw_logs.as_of import AsOfError  # noqa: E402
from runlens.raw_logs.folder_metadata import MetadataError  # noqa: E402
from runlens.raw_logs.listing import RawFolderError, check_raw_dir  # noqa: E402
from runlens.raw_logs.raw_tables import ReadSummary  # noqa: E402
from scripts.engines.connections import postgres_connection, postgres_settings  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ENGINES = ("postgres", "spark")
USER_ERRORS = (RawFolderError, AsOfError, MetadataError)


def raw_dir() -> str:
    return os.environ.get("RUNLENS_RAW_DIR", str(REPO / "data" / "sample"))


def read_postgres(folder: str) -> ReadSummary | None:
    settings = postgres_settings()
    connection = postgres_connection(settings)
    if connection is None:
        return None
    from runlens.raw_logs.postgres_reader import refresh

    raw_schema = os.environ.get("RUNLENS_PG_RAW_SCHEMA", settings.schema + "_raw")
    try:
        return refresh(connection, folder, raw_schema)
    finally:
        connection.close()


def read_spark(folder: str, profiles_dir: Path) -> ReadSummary:
    from runlens.raw_logs.raw_tables import raw_schema
    from runlens.raw_logs.spark_reader import refresh
    from scripts.engines.spark_session import profile_session, spark_schema

    return refresh(profile_session(profiles_dir), folder, raw_schema(spark_schema()))


def profiles_dir(dbt_args: list[str]) -> Path:
    for index, arg in enumerate(dbt_args[:-1]):
        if arg == "--profiles-dir":
            return Path(dbt_args[index + 1])
    return Path(os.environ.get("DBT_PROFILES_DIR", REPO))


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ENGINES:
        print(
            f"usage: {Path(__file__).name} {{{'|'.join(ENGINES)}}} [--with-unit-tests] [dbt build args...]",
            file=sys.stderr,
        )
        return 2
    engine, dbt_args = argv[0], argv[1:]
    unit_tests = "--with-unit-tests" in dbt_args
    dbt_args = [arg for arg in dbt_args if arg != "--with-unit-tests"]
    os.environ.setdefault("DBT_PROFILES_DIR", str(REPO))
    os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    if engine == "spark":  # the in-process Spark driver binds to the loopback interface only
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    try:
        folder = check_raw_dir(raw_dir())
        os.environ["RUNLENS_RAW_DIR"] = folder
        summary = read_postgres(folder) if engine == "postgres" else read_spark(folder, profiles_dir(dbt_args))
    except (*USER_ERRORS, ValueError) as error:  # a folder, metadata file or setting: one line
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    if summary is None:
        return 2
    print(
        f"runlens: {plural(summary.files, 'raw file')}: {summary.read_files} read "
        f"({plural(summary.read_lines, 'line')}), {summary.forgotten_files} changed or removed",
        file=sys.stderr,
    )
    from dbt.cli.main import dbtRunner

    exclusions = [] if unit_tests else ["--exclude-resource-type", "unit_test"]
    if "--project-dir" not in dbt_args:
        dbt_args = [*dbt_args, "--project-dir", str(REPO)]
    result = dbtRunner().invoke(["build", *exclusions, "--target", engine, *dbt_args])
    if result.exception is not None:
        return 2
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
