"""`runlens marts`: the bearings of a database of marts, so a reader never needs
information_schema to start (issue 25).

    runlens marts [--db PATH]

Lists every mart runlens declares (runlens/mart_catalog.py, the models' YAML) with its grain and
its row count in the database, and says how to see a mart's columns (`describe <mart>`) and a
summary of its values (`summarize <mart>`) in DuckDB. A database that does not exist or that no
build made prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

from runlens.mart_catalog import declared_marts, grain_of
from runlens.refresh.build import database_path
from runlens.usage import no_database, no_marts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, help="the database (default: $RUNLENS_DB, else runlens.duckdb)")


def mart_rows(database: Path) -> list[tuple[str, str, int | None]]:
    """(mart, grain, rows) for every declared mart; rows is None for a mart the database lacks."""
    with duckdb.connect(str(database), read_only=True) as connection:
        present = {row[0] for row in connection.execute("select table_name from information_schema.tables").fetchall()}
        return [
            (
                model["name"],
                grain_of(model),
                connection.execute(f'select count(*) from "{model["name"]}"').fetchone()[0]
                if model["name"] in present
                else None,
            )
            for model in sorted(declared_marts(), key=lambda model: model["name"])
        ]


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    database = database_path(args.db)
    if not database.is_file():
        print(f"runlens: {no_database(database)}", file=sys.stderr)
        return 2
    try:
        rows = mart_rows(database)
    except duckdb.Error as error:
        first_line = str(error).splitlines()[0]
        print(f"runlens: cannot read {database} ({first_line}): wait for the running build to finish", file=sys.stderr)
        return 2
    if all(count is None for _, _, count in rows):
        print(f"runlens: {no_marts(database)}", file=sys.stderr)
        return 2
    width = max(len(name) for name, _, _ in rows)
    counts = {name: "missing" if count is None else f"{count:,}" for name, _, count in rows}
    count_width = max(len(text) for text in counts.values())
    print(
        f"{len(rows)} marts in {database}; in DuckDB, `describe <mart>` lists its columns, "
        "`summarize <mart>` its values"
    )
    print(f"{'mart':<{width}}  {'rows':>{count_width}}  grain")
    for name, grain, _ in rows:
        print(f"{name:<{width}}  {counts[name]:>{count_width}}  {grain}")
    return 0
