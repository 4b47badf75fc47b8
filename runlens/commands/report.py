"""`runlens report`: render the Markdown runtime profiles from the marts.

    runlens report [--db PATH] [--out DIR] [--collection NAME]

Reads only the marts of the DuckDB file (default: $RUNLENS_DB, else runlens.duckdb in the current
folder) and writes <out>/<collection-slug>/profile.md (with its charts) for every collection, plus
<out>/index.md (default folder: reports/); marts with no run get an index all the same, which says
so and how to point the build at logs. A mistake (no database, an unbuilt one, an unknown
collection) prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection
from pathlib import Path

from runlens.plural import plural
from runlens.refresh.build import database_path
from runlens.usage import no_database

DEFAULT_OUT = Path("reports")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", type=Path, help="the database the marts are in (default: $RUNLENS_DB, else runlens.duckdb)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the pages go (default: %(default)s)")
    parser.add_argument("--collection", help="render only this collection's profile (no index)")


def report(
    db: Path | None, out: Path, collection: str | None = None, collections: Collection[str] | None = None
) -> int:
    """Render the pages (all, one collection's, or the index and the profiles of collections);
    the exit status, a mistake said in one line."""
    database = database_path(db)
    if not database.is_file():  # said before matplotlib loads
        print(f"runlens: {no_database(database)}", file=sys.stderr)
        return 2
    from runlens.report.render import ReportError, render_reports  # matplotlib: only when rendering

    try:
        written = render_reports(database, out, collection, collections)
    except ReportError as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    print(f"runlens: wrote {plural(len(written), 'page')} under {out}")
    return 0


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    return report(args.db, args.out, args.collection)
