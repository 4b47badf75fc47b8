"""Crash-safe, one-at-a-time `dbt build` of the runlens marts.

    python scripts/build.py [DBT BUILD ARGS...]      (make sample runs this)

It runs `dbt build --exclude-resource-type unit_test`: the models and every data test. The unit
tests (fixed inputs, so the same result every time) run in `make test`.

The build never writes the database that readers use. It copies `$RUNLENS_DB` (default
runlens.duckdb) to `<db>.next`, runs `dbt build` on the copy (incremental models need the
previous state), and only when dbt succeeds replaces the database with the copy in one atomic
rename. So a report or an ad-hoc query during a build reads the previous build's marts, whole and
consistent; a build killed at any moment leaves the previous database untouched (the next build
removes the stale copy and starts again); and a second build started while one runs stops at once
with a one-line message naming the lock file, instead of corrupting anything.

Before dbt starts, the raw folder dbt is handed (RUNLENS_RAW_DIR, a relative one taken from the
repo folder; default data/sample) is checked as the build's own listing checks it
(raw_logs/listing.py): a path that does not exist, is a file or cannot be read stops the build
with one line (exit 2), as does a RUNLENS_AS_OF (or a folder's runlens_as_of.txt) that is no time
(raw_logs/as_of.py) and a collections file that cannot be used (raw_logs/folder_metadata.py). A
folder with no logs builds empty marts and says so in one line.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from runlens.raw_logs.as_of import AsOfError, pinned_as_of  # noqa: E402
from runlens.raw_logs.folder_metadata import MetadataError, read_collections  # noqa: E402
from runlens.raw_logs.listing import DEFAULT_RAW_DIR, RawFolderError, has_log_files, no_logs_note  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
# A refresh builds and tests the data; dbt's unit tests check the SQL against fixed inputs, so they
# run in development and CI (make test), not on every refresh (as dbt's documentation advises).
REFRESH = ("build", "--exclude-resource-type", "unit_test")
# dbt's words when an incremental model's table has other columns than the model now makes
OUT_OF_SYNC = "schemas on this incremental model are out of sync"


def database_path() -> Path:
    return Path(os.environ.get("RUNLENS_DB", REPO / "runlens.duckdb")).resolve()


def raw_folder() -> Path:
    """The raw folder dbt is handed: RUNLENS_RAW_DIR (a relative path from the repo folder), else the sample."""
    return REPO / (os.environ.get("RUNLENS_RAW_DIR") or DEFAULT_RAW_DIR)


def tables_out_of_date(project: Path) -> bool:
    """True when the build that just failed stopped at an incremental model whose table an earlier
    version of runlens made with other columns (dbt's run_results.json says so): only a full
    refresh, which reads the raw logs again, can rebuild it."""
    try:
        results = json.loads((project / "target" / "run_results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any(OUT_OF_SYNC in (result.get("message") or "") for result in results.get("results") or [])


def fsync_directory(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def build(dbt_args: list[str]) -> int:
    raw = raw_folder()
    try:
        has_logs = has_log_files(str(raw))
        pinned_as_of(raw)
        read_collections(raw)
    except (RawFolderError, AsOfError, MetadataError) as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    database = database_path()
    if not database.parent.is_dir():
        print(
            f"runlens: the folder of the database {database} does not exist: create it, or set RUNLENS_DB "
            "to a path in a folder that exists",
            file=sys.stderr,
        )
        return 2
    building = database.with_name(database.name + ".next")
    lock_path = database.with_name(database.name + ".lock")
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"runlens: another build holds {lock_path}: wait for it to finish, then build again", file=sys.stderr)
            return 2
        for stale in (building, building.with_name(building.name + ".wal")):
            stale.unlink(missing_ok=True)
        if database.exists():
            shutil.copyfile(database, building)
            wal = database.with_name(database.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, building.with_name(building.name + ".wal"))
        dbt = Path(sys.executable).with_name("dbt")
        # dbt runs beside the database and opens the copy by its file name, so the rendered
        # profile is the same for every build of a database of that name: dbt then reuses its
        # parse of the project instead of parsing it all again
        environment = {**os.environ, "RUNLENS_DB": building.name, "RUNLENS_RAW_DIR": str(raw)}
        environment.setdefault("DBT_PROFILES_DIR", str(REPO))
        command = [str(dbt), *REFRESH, "--project-dir", str(REPO), *dbt_args]
        result = subprocess.run(command, cwd=database.parent, env=environment, check=False)
        if result.returncode != 0 and "--full-refresh" not in dbt_args and tables_out_of_date(REPO):
            print(
                f"runlens: {database} was built by an earlier runlens whose tables differ from this one's: "
                "building it again whole from the raw logs (--full-refresh)",
                file=sys.stderr,
            )
            result = subprocess.run([*command, "--full-refresh"], cwd=database.parent, env=environment, check=False)
        if result.returncode != 0:
            building.unlink(missing_ok=True)
            print(f"runlens: dbt build failed; {database} still holds the previous build", file=sys.stderr)
            return result.returncode
        with open(building, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(building, database)
        fsync_directory(database.parent)
    if not has_logs:
        print(f"runlens: {no_logs_note(str(raw))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(build(sys.argv[1:]))
