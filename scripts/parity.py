"""Check that every mart is the same, row by row, on each engine that built it.

    python scripts/parity.py --reference duckdb:PATH \
        [--candidate postgres:SCHEMA] [--candidate spark:WAREHOUSE_DIR:SCHEMA] [--candidate duckdb:PATH]

The marts and their keys come from the YAML under models/marts. PostgreSQL is reached with
RUNLENS_PG_HOST (default 127.0.0.1), RUNLENS_PG_PORT (5432), RUNLENS_PG_USER (runlens),
RUNLENS_PG_PASSWORD (empty) and RUNLENS_PG_DATABASE (runlens). Prints one line per difference (at
most --max-lines per candidate, then a count) and a summary line per candidate.

Exit status: 0 when every candidate equals the reference, 1 on any difference, 2 on a user mistake
(a missing database file or warehouse folder, a server that cannot be reached).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# run as a script from any folder: the checkout first, so that scripts.* import by their full names
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runlens.plural import plural  # noqa: E402
from scripts.engines.connections import postgres_settings  # noqa: E402
from scripts.engines.parity import (  # noqa: E402
    Mart,
    ParityInputError,
    Tables,
    compare,
    load_marts,
    read_duckdb,
    read_postgres,
    read_spark,
)

ENGINES = "duckdb:PATH, postgres:SCHEMA or spark:WAREHOUSE_DIR:SCHEMA"


def read_engine(spec: str, marts: list[Mart]) -> tuple[str, Tables]:
    """The engine's name and its marts, for a spec such as `duckdb:PATH`."""
    engine, _, rest = spec.partition(":")
    if engine == "duckdb" and rest:
        return engine, read_duckdb(Path(rest), marts)
    if engine == "postgres" and rest:
        try:
            settings = postgres_settings(rest)
        except ValueError as error:
            raise ParityInputError(str(error)) from error
        return engine, read_postgres(settings, marts)
    if engine == "spark" and ":" in rest:
        warehouse, schema = rest.rsplit(":", 1)
        if warehouse and schema:
            return engine, read_spark(Path(warehouse), schema, marts)
    raise ParityInputError(f"cannot read engine {spec!r}: expected {ENGINES}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parity.py", description="Compare the marts of several engines row by row.")
    parser.add_argument("--reference", required=True, metavar="ENGINE", help=f"the reference: {ENGINES}")
    parser.add_argument(
        "--candidate", required=True, action="append", metavar="ENGINE", help="an engine to check (repeatable)"
    )
    parser.add_argument("--max-lines", type=int, default=50, help="difference lines per candidate (default 50)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    marts = load_marts()
    try:
        reference_name, reference = read_engine(args.reference, marts)
        candidates = [read_engine(spec, marts) for spec in args.candidate]
    except ParityInputError as error:
        print(f"parity: {error}", file=sys.stderr)
        return 2
    names = [name for name, _ in candidates]
    total = 0
    for number, (name, tables) in enumerate(candidates, start=1):
        if names.count(name) > 1 or name == reference_name:
            name = f"{name}#{number}"
        differences = compare(reference, tables, marts, reference_name, name)
        for difference in differences[: args.max_lines]:
            print(difference)
        if len(differences) > args.max_lines:
            print(f"... and {plural(len(differences) - args.max_lines, 'more difference')}")
        rows = sum(len(rows) for rows in tables.values())
        counts = f"{plural(len(tables), 'mart')}, {plural(rows, 'row')}, {plural(len(differences), 'difference')}"
        print(f"parity: {name} vs {reference_name}: {counts}")
        total += len(differences)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
