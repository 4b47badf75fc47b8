"""The rows a page is made of: a mart's rows with the columns and types its YAML contract declares,
or the rows of a query in queries/ where a page needs one (a join). One generic path, so that a
column added to a mart and its YAML is on the page's rows without another declaration."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, make_dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from runlens.mart_catalog import declared_marts

QUERIES = Path(__file__).with_name("queries")
# the Python type of each type the contracts name (var runlens_types in dbt_project.yml)
PYTHON_TYPES = {"double": float, "string": str, "bigint": int, "timestamp": datetime, "boolean": bool, "json": str}
CONTRACT_TYPE = re.compile(r"runlens_types'\)\[target\.type\]\.(\w+)")


class Row:
    """The base of every row type: a frozen dataclass whose fields are the columns, in order."""


class StaleDatabase(RuntimeError):
    """The database lacks a mart or a column this runlens declares: another version built it."""


@functools.cache
def contracts() -> dict[str, tuple[tuple[str, type], ...]]:
    """Every mart's columns and their Python types, as its YAML contract declares them (the YAML is
    read once per process: a page reads some 40 marts)."""
    return {
        model["name"]: tuple(
            (column["name"], PYTHON_TYPES[CONTRACT_TYPE.search(column["data_type"]).group(1)])
            for column in model["columns"]
        )
        for model in declared_marts()
    }


def contract(mart: str) -> tuple[tuple[str, type], ...]:
    """The columns of mart `mart` and their Python types, as its YAML contract declares them."""
    try:
        return contracts()[mart]
    except KeyError:
        raise KeyError(f"{mart} is not a mart runlens declares (models/marts/*/_*__models.yml)") from None


@functools.cache
def row_type(name: str, columns: tuple[str, ...]) -> type:
    """The row type named after a mart or query, with these columns as fields."""
    camel = "".join(part.title() for part in name.split("_"))
    return make_dataclass(camel, list(columns), bases=(Row,), frozen=True)


def row(name: str, **values) -> Row:
    """A row with exactly these columns (for tests and for the empty rows a page shows as zeros)."""
    return row_type(name, tuple(values))(**values)


def mart_row(mart: str, **values) -> Row:
    """A row of mart `mart`: every column of its contract, the ones not given None."""
    columns = tuple(column for column, _ in contract(mart))
    unknown = set(values) - set(columns)
    if unknown:
        raise KeyError(f"{mart} has no column {sorted(unknown)[0]}")
    return row_type(mart, columns)(**{column: values.get(column) for column in columns})


@dataclass(frozen=True)
class MartRead:
    """Which rows of a mart a part of a page shows: a condition on its columns (with $named
    parameters) and an order. Every column of the mart's contract comes along."""

    mart: str
    where: str = ""
    order_by: str = ""

    def sql(self) -> str:
        columns = ", ".join(f'"{column}"' for column, _ in contract(self.mart))
        text = f"select {columns} from {self.mart}"
        if self.where:
            text += f" where {self.where}"
        if self.order_by:
            text += f" order by {self.order_by}"
        return text


def read_mart(connection: duckdb.DuckDBPyConnection, read: MartRead, **params) -> list[Row]:
    """The rows `read` names, typed by the mart's contract; a loud error when the database lacks
    a column the contract declares or holds a value of another type."""
    columns = contract(read.mart)
    names = tuple(column for column, _ in columns)
    used = {name: value for name, value in params.items() if f"${name}" in read.where}
    try:
        fetched = connection.execute(read.sql(), used).fetchall()
    except (duckdb.CatalogException, duckdb.BinderException) as error:
        missing = [column for column in names if column.lower() not in table_columns(connection, read.mart)]
        raise StaleDatabase(
            f"{read.mart} lacks {', '.join(missing) or 'what this runlens reads'} (built by another runlens"
            " version): run `runlens build` again"
        ) from error
    for values in fetched[:1]:
        for (column, expected), value in zip(columns, values, strict=True):
            if value is not None and not isinstance(value, expected):
                raise StaleDatabase(
                    f"{read.mart}.{column} holds {type(value).__name__}, its contract says {expected.__name__}:"
                    " run `runlens build` again"
                )
    make = row_type(read.mart, names)
    return [make(*values) for values in fetched]


def table_columns(connection: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    found = connection.execute(
        "select lower(column_name) from information_schema.columns where table_name = ?", [table]
    ).fetchall()
    return {name for (name,) in found}


def read_query(connection: duckdb.DuckDBPyConnection, query: str, **params) -> list[Row]:
    """The rows of queries/<query>.sql with named parameters, one field per column it selects."""
    cursor = connection.execute((QUERIES / f"{query}.sql").read_text(encoding="utf-8"), params)
    make = row_type(query, tuple(description[0] for description in cursor.description))
    return [make(*values) for values in cursor.fetchall()]
