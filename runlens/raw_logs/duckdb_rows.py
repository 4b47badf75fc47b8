"""Rows from Python into a DuckDB table in one statement: each column handed over as one list and
unnested beside the others. DuckDB's executemany runs its insert once per row (about 0.2 ms each),
so the file records of a folder written one file per run (100k files) cost about 20 s a table that
way, and a fraction of a second this way (docs/performance.md, "Many small files")."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb


def insert_rows(
    connection: duckdb.DuckDBPyConnection, table: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence]
) -> None:
    """Insert rows (tuples in the order of columns, each a (name, DuckDB type) pair) into table."""
    if not rows:
        return
    values = [list(column) for column in zip(*rows, strict=True)]
    if len(values) != len(columns):
        raise ValueError(f"{len(columns)} columns, rows of {len(values)} values")
    names = ", ".join(name for name, _ in columns)
    unnested = ", ".join(f"unnest(?::{kind}[])" for _, kind in columns)
    connection.execute(f"insert into {table} ({names}) select {unnested}", values)
