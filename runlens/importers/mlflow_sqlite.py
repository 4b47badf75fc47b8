"""The MLflow sqlite store (`mlflow.db`, MLflow 3's default), read with Python's sqlite3.

The database is opened read-only. The tables read are MLflow's own: `experiments`
(experiment_id, name, lifecycle_stage), `runs` (run_uuid, name, status, start_time, end_time,
lifecycle_stage, experiment_id, artifact_uri), `params`, `tags` (key, value, run_uuid) and
`metrics` (key, value, is_nan, timestamp, step, run_uuid); times are Unix milliseconds. MLflow
stores a NaN as value 0 with is_nan 1: it is read as NaN, as the file store's `nan` is.

Its importer (IMPORTER) claims each database below a PATH that looks like MLflow's, and a
database given as the PATH itself with --format mlflow.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from urllib.parse import unquote, urlparse

from . import mlflow_runs, scalars
from .common import Options, Outcome, Reject, display_path, us_from_millis
from .importer import Claimed, Claims, Importer, Source, Walk
from .mlflow_runs import FORMAT, MlflowRun, normalise_status

SQLITE_MAGIC = b"SQLite format 3\x00"
NEEDED_TABLES = {"experiments", "runs", "metrics", "params", "tags"}
SUFFIXES = (".db", ".sqlite", ".sqlite3")


def is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            return stream.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _connect(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    try:
        connection = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        connection.execute("select count(*) from sqlite_master").fetchone()
        return connection
    except sqlite3.Error:
        # a read-only folder cannot hold the lock files: read it as immutable
        connection = sqlite3.connect(f"{uri}?immutable=1", uri=True)
        connection.execute("select count(*) from sqlite_master").fetchone()
        return connection


def is_mlflow_store(path: Path) -> bool:
    """A sqlite database that looks like MLflow's (named mlflow.db, or with its tables); whether it
    is whole is the reader's business (a damaged one is a named reject, not a skip)."""
    if path.name == "mlflow.db":
        return True
    if not is_sqlite(path):
        return False
    try:
        connection = _connect(path)
        try:
            tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
        finally:
            connection.close()
    except sqlite3.Error:
        return True  # a database we cannot open: the reader names the reject
    return bool({"experiments", "runs", "alembic_version"} & tables)


def _artifact_dir(uri: str | None, database: Path, experiment_id: str, run_uuid: str) -> Path | None:
    candidates = []
    if uri:
        parsed = urlparse(uri)
        if parsed.scheme in ("", "file"):
            candidates.append(Path(unquote(parsed.path)))
    candidates.append(database.parent / "mlruns" / experiment_id / run_uuid / "artifacts")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def read_store(path: Path) -> tuple[list[MlflowRun], list[Reject]]:
    shown = display_path(path)
    if not is_sqlite(path):
        return [], [Reject(FORMAT, shown, "unreadable_sqlite_store", "not a sqlite database")]
    try:
        connection = _connect(path)
    except sqlite3.Error as error:
        return [], [Reject(FORMAT, shown, "unreadable_sqlite_store", f"cannot open: {error}")]
    try:
        tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
        missing = NEEDED_TABLES - tables
        if missing:
            return [], [Reject(FORMAT, shown, "unreadable_sqlite_store", f"missing tables {sorted(missing)}")]
        experiments = {
            str(row[0]): (row[1], row[2])
            for row in connection.execute("select experiment_id, name, lifecycle_stage from experiments")
        }
        rows = connection.execute(
            "select run_uuid, name, status, start_time, end_time, lifecycle_stage, experiment_id, artifact_uri "
            "from runs order by start_time, run_uuid"
        ).fetchall()
        params = _key_values(connection, "params")
        tags = _key_values(connection, "tags")
        metrics: dict[str, scalars.Series] = {}
        # is_nan: since MLflow 1.x (a store without it holds no NaN flag to read)
        metric_columns = {row[1] for row in connection.execute("pragma table_info(metrics)")}
        is_nan = "is_nan" if "is_nan" in metric_columns else "0"
        for run_uuid, key, value, nan, timestamp, step in connection.execute(
            f"select run_uuid, key, value, {is_nan}, timestamp, step from metrics "
            "order by run_uuid, key, timestamp, step"
        ):
            value = math.nan if nan else float(value)
            point = scalars.Point(us_from_millis(timestamp), int(step or 0), value, shown)
            metrics.setdefault(run_uuid, {}).setdefault(key, []).append(point)
    except sqlite3.Error as error:
        return [], [Reject(FORMAT, shown, "unreadable_sqlite_store", f"query failed: {error}")]
    finally:
        connection.close()
    runs = []
    for run_uuid, name, status, start, end, stage, experiment_id, artifact_uri in rows:
        experiment_name, experiment_stage = experiments.get(str(experiment_id), (None, None))
        run = MlflowRun(
            run_uuid=run_uuid,
            name=name or tags.get(run_uuid, {}).get("mlflow.runName", ""),
            experiment_id=str(experiment_id),
            experiment_name=experiment_name,
            status="DELETED" if "deleted" in (stage, experiment_stage) else normalise_status(status),
            start_ms=start,
            end_ms=end,
            source_path=shown,
            params=params.get(run_uuid, {}),
            tags=tags.get(run_uuid, {}),
            metrics=metrics.get(run_uuid, {}),
            artifact_dir=_artifact_dir(artifact_uri, path, str(experiment_id), run_uuid),
        )
        runs.append(run)
    return runs, []


def _key_values(connection: sqlite3.Connection, table: str) -> dict[str, dict[str, str]]:
    values: dict[str, dict[str, str]] = {}
    for key, value, run_uuid in connection.execute(f"select key, value, run_uuid from {table} order by run_uuid, key"):
        values.setdefault(run_uuid, {})[key] = "" if value is None else str(value)
    return values


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """Each database that looks like MLflow's; the PATH itself, when --format mlflow names it."""
    sources = []
    for path in walk.files:
        if path.suffix in SUFFIXES and (explicit and path == walk.path or is_mlflow_store(path)):
            sources.append(Source(IMPORTER, path, walk.base, [path]))
    return Claims(sources)


def read(source: Source, options: Options) -> Outcome:
    mlruns, rejects = read_store(source.path)
    return mlflow_runs.import_runs(mlruns, rejects, options)


IMPORTER = Importer(FORMAT, "mlflow_sqlite", "MLflow", None, claim, read)
