"""`runlens watch`: keep the marts and the pages up to date while the logs grow.

    runlens watch [--logs DIR] [--db PATH] [--out DIR] [--interval S] [--settle S] [-v]

Its arguments and its run; the loop (when it refreshes, how it stops, which pages it renders
again) is runlens/refresh/watch.py, and docs/internals.md, "The watch", says how it works.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from runlens.commands.report import DEFAULT_OUT
from runlens.refresh.watch import watch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--logs", type=Path, help="the raw log folder (default: $RUNLENS_RAW_DIR, else the sample)")
    parser.add_argument("--db", type=Path, help="the database (default: $RUNLENS_DB, else runlens.duckdb)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the pages go (default: %(default)s)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between looks at the folder")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds the folder must be still before a refresh")
    parser.add_argument("-v", "--verbose", action="store_true", help="show dbt's log (else it goes to a file)")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.interval <= 0 or args.settle < 0:
        parser.error("--interval must be more than 0 and --settle 0 or more")
    return watch(args.logs, args.db, args.out, args.interval, args.settle, verbose=args.verbose)
