"""`runlens build`: build the marts from the raw logs, crash-safe.

    runlens build [--logs DIR] [--db PATH] [-v] [--timings FILE] [-- DBT BUILD OPTIONS]

Its arguments and its run; the build itself (what it checks before dbt starts, the copy, the lock,
the swap) is runlens/refresh/build.py.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from runlens.refresh import build as building
from runlens.refresh.dbt_session import DbtSession
from runlens.refresh.stopping import Stopping


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--logs", type=Path, help="the raw log folder (default: $RUNLENS_RAW_DIR, else the sample)")
    parser.add_argument("--db", type=Path, help="the database (default: $RUNLENS_DB, else runlens.duckdb)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show dbt's log (else it goes to a file)")
    parser.add_argument(
        "--timings", type=Path, metavar="FILE", help="write dbt's elapsed time and each node's seconds (JSON)"
    )
    parser.add_argument("dbt_args", nargs="*", metavar="-- DBT BUILD OPTIONS", help="passed to dbt build")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    building.check_buildable(args.logs, args.db)  # before dbt: a folder with nothing to build costs no build
    database = building.database_path(args.db)
    command = "runlens report" + (f" --db {database}" if args.db else "")
    stopped = f"runlens: stopped; {database} holds the last build that finished"
    with Stopping(lambda: stopped).installed() as stopping, DbtSession(verbose=args.verbose) as session:
        try:
            outcome = building.build(
                args.logs,
                args.db,
                args.dbt_args,
                session=session,
                reports=f"not written yet: {command}",
                timings=args.timings,
            )
        except KeyboardInterrupt:
            return stopping.end()
    return outcome.returncode
