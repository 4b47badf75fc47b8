"""Render runlens's Markdown runtime profiles from the dbt marts.

    python scripts/render_report.py [--db PATH] [--out DIR] [--collection NAME]

Reads only the marts of the DuckDB file (default: $RUNLENS_DB, else runlens.duckdb in the repo)
and writes <out>/<collection-slug>/profile.md (with its chart) for every collection, plus
<out>/index.md; marts with no run get an index all the same, which says so and how to point the
build at logs (`RUNLENS_RAW_DIR=<folder> make sample`). A mistake (no database, an unbuilt one, an
unknown collection) prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from runlens.plural import plural  # noqa: E402
from runlens.report.render import ReportError, render_reports  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Render runlens runtime profiles from the marts.")
    parser.add_argument("--db", type=Path, default=Path(os.environ.get("RUNLENS_DB", REPO / "runlens.duckdb")))
    parser.add_argument("--out", type=Path, default=REPO / "reports")
    parser.add_argument("--collection", help="render only this collection's profile (no index)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        written = render_reports(args.db, args.out, args.collection)
    except ReportError as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    print(f"runlens: wrote {plural(len(written), 'page')} under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
