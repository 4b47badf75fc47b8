"""`runlens profile`: import existing training logs, build their marts and render the reports, in
one go (what `make profile FROM=...` runs).

    runlens profile PATH... [--into RAW_DIR] [--db PATH] [--reports DIR] [importer options] [-v]

Imports every source below the PATHs into RAW_DIR (default `imported/`; runlens/commands/import_logs.py, with
all of `runlens import`'s options: --format, --timezone, --into-collection, ...), builds the marts of
RAW_DIR into the database (default `<RAW_DIR>.duckdb`) and renders the pages (default
`reports/<RAW_DIR's name>/`). A PATH with nothing to import is named with the reason, as importing
it alone would say, and left out; nothing at all to import stops with that line (exit 1).
Importing a source again replaces what its earlier import wrote. `--dry-run` lists the sources
found and writes nothing (no RAW_DIR needed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from runlens.commands import import_logs as importing
from runlens.commands.report import report
from runlens.importers.inputs import nothing_to_import
from runlens.importers.runner import discover
from runlens.refresh import build as building
from runlens.refresh.dbt_session import DbtSession

DEFAULT_INTO = Path("imported")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="folders or files of training logs")
    parser.add_argument(
        "--into",
        type=Path,
        default=DEFAULT_INTO,
        metavar="RAW_DIR",
        help="the folder the imported logs go to (default: %(default)s)",
    )
    importing.add_into_alias(parser)
    parser.add_argument("--db", type=Path, help="the database of their marts (default: <RAW_DIR>.duckdb)")
    parser.add_argument(
        "--reports", type=Path, metavar="DIR", help="where the pages go (default: reports/<RAW_DIR's name>)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show dbt's log (else it goes to a file)")
    importing.add_import_options(parser)


def importable(paths: list[Path], fmt: str, options) -> list[Path]:
    """The PATHs that hold something to import; each other one is named with the reason."""
    kept = []
    for path in paths:
        plan = discover([path], fmt, options)
        if plan.sources:
            kept.append(path)
        else:
            print(f"runlens: skipping {path}: {nothing_to_import([path], fmt, plan.notes)}", file=sys.stderr)
    return kept


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    options = importing.options_from(args, parser)
    failed = importing.checked(args, None if args.dry_run else args.into)
    if failed is not None:
        return failed
    if args.dry_run:
        return importing.dry_run(args.paths, args.format, options)
    paths = importable(args.paths, args.format, options) if len(args.paths) > 1 else args.paths
    if not paths:
        print(f"runlens: nothing to import in {', '.join(map(str, args.paths))}", file=sys.stderr)
        return 1
    imported = importing.import_logs(paths, args.into, args.format, options, args.quiet)
    if imported != 0:
        return imported
    database = args.db or args.into.with_name(args.into.name + ".duckdb")
    reports = args.reports or Path("reports") / args.into.resolve().name
    with DbtSession(verbose=args.verbose) as session:
        outcome = building.build(args.into, database, session=session, reports=f"{reports / 'index.md'} (written next)")
    if outcome.returncode != 0:
        return outcome.returncode
    return report(database, reports)
