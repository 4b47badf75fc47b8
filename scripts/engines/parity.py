"""Row-by-row parity of the marts built by different engines (DuckDB, PostgreSQL, Spark).

The marts and their keys come from the YAML files below models/marts (a mart whose meta says
`compared: false`, such as dim_build, which records the build itself, is left out): a model-level
`runlens.unique_combination` test names the key columns; otherwise the key is the column with a
`unique` test. Each reader returns `{mart: [row, ...]}` with every row a dict of lower-cased column
names to values normalised for comparison across engines (Decimal -> float, timestamps -> naive
UTC). `compare` matches rows on their keys and lists every difference.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from runlens.mart_catalog import MARTS_DIR, declared_marts, is_compared, uncompared_columns
from scripts.engines.connections import PostgresSettings

REPO = Path(__file__).resolve().parents[2]
REL_TOL = 1e-9
ABS_TOL = 1e-9

Rows = list[dict[str, Any]]
Tables = dict[str, Rows]


class ParityInputError(Exception):
    """A user mistake: a missing database file or folder, a server that cannot be reached."""


@dataclass(frozen=True)
class Mart:
    """A mart: its name, key columns, columns in the YAML's order, and those that hold JSON."""

    name: str
    key: tuple[str, ...]
    columns: tuple[str, ...]
    json_columns: tuple[str, ...] = ()
    uncompared: tuple[str, ...] = ()  # columns that record the build (meta compared: false)


@dataclass(frozen=True)
class Difference:
    """One way a candidate engine's marts differ from the reference engine's.

    problem is one of: "value", "missing table", "missing column", "missing row", "duplicate key".
    side names the engine that lacks the table, column or row, or holds the duplicate key (count times).
    """

    reference: str
    candidate: str
    table: str
    problem: str
    key: str = ""
    column: str = ""
    reference_value: Any = None
    candidate_value: Any = None
    side: str = ""
    count: int = 0

    def __str__(self) -> str:
        where = self.table + (f" [{self.key}]" if self.key else "") + (f" {self.column}" if self.column else "")
        pair = f"{self.candidate} vs {self.reference}"
        if self.problem == "value":
            shown = f"{self.reference}={show(self.reference_value)} {self.candidate}={show(self.candidate_value)}"
            return f"{pair}: {where}: {shown}"
        if self.problem == "duplicate key":
            return f"{pair}: {where}: key appears {self.count} times in {self.side}"
        return f"{pair}: {where}: {self.problem.removeprefix('missing ')} missing in {self.side}"


def show(value: Any) -> str:
    """A value as a difference line shows it: NULL for None, quotes around text, full float precision."""
    if value is None:
        return "NULL"
    return repr(value) if isinstance(value, str | float) else str(value)


def _tests(entry: dict) -> list:
    return list(entry.get("data_tests") or []) + list(entry.get("tests") or [])


def _test_name_and_config(test: Any) -> tuple[str, dict]:
    if isinstance(test, str):
        return test, {}
    name, config = next(iter(test.items()))
    return name, config or {}


def _model_key(model: dict) -> tuple[str, ...]:
    """The mart's key: its unique or primary-key constraint (on the model or a column), else its
    primary_key, unique_combination or unique test, the key of its table_rules test, or the key its
    config's meta names (a mart whose key is checked on the table it projects: `meta: {key: [...]}`)."""
    for constraint in model.get("constraints") or []:
        if constraint.get("type") in ("unique", "primary_key"):
            return tuple(column.lower() for column in constraint["columns"])
    for column in model.get("columns") or []:
        if any(constraint.get("type") in ("unique", "primary_key") for constraint in column.get("constraints") or []):
            return (column["name"].lower(),)
    for test in _tests(model):
        name, config = _test_name_and_config(test)
        if name.split(".")[-1] in ("unique_combination", "primary_key"):
            columns = (config.get("arguments") or {}).get("columns") or config.get("columns")
            return tuple(column.lower() for column in columns)
        if name.split(".")[-1] == "table_rules" and (config.get("arguments") or {}).get("key"):
            return tuple(column.lower() for column in config["arguments"]["key"])
    for column in model.get("columns") or []:
        if any(_test_name_and_config(test)[0] == "unique" for test in _tests(column)):
            return (column["name"].lower(),)
    declared = ((model.get("config") or {}).get("meta") or {}).get("key")
    if declared:
        return tuple(column.lower() for column in declared)
    raise ValueError(f"mart {model['name']} has no unique constraint or test: no key")


def load_marts(marts_dir: Path = MARTS_DIR) -> list[Mart]:
    """The marts that two builds of the same logs must agree on, each with its key and its columns."""
    return [
        Mart(
            name=model["name"],
            key=_model_key(model),
            columns=tuple(
                column["name"].lower()
                for column in model.get("columns") or []
                if column["name"].lower() not in uncompared_columns(model)
            ),
            uncompared=uncompared_columns(model),
            json_columns=tuple(
                column["name"].lower()
                for column in model.get("columns") or []
                if str(column.get("data_type", "")).replace(" ", "").endswith("].json}}")
            ),
        )
        for model in declared_marts(marts_dir)
        if is_compared(model)
    ]


def normalise(value: Any) -> Any:
    """A value as compared across engines: Decimal -> float, timestamps -> naive UTC, else unchanged."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def _rows(names: list[str], records: list[tuple]) -> Rows:
    lowered = [name.lower() for name in names]
    return [{name: normalise(value) for name, value in zip(lowered, record, strict=True)} for record in records]


def _read_relation(connection: Any, relation: str) -> Rows:
    cursor = connection.cursor()
    try:
        cursor.execute(f"select * from {relation}")
        names = [column[0] for column in cursor.description]
        return _rows(names, cursor.fetchall())
    finally:
        cursor.close()


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def read_duckdb(path: Path | str, marts: list[Mart], schema: str = "main") -> Tables:
    """The marts found in schema of the DuckDB database file at path, opened read-only."""
    path = Path(path)
    if not path.is_file():
        raise ParityInputError(f"DuckDB database {path} does not exist")
    try:
        connection = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as error:
        raise ParityInputError(f"cannot open DuckDB database {path}: {error}".splitlines()[0]) from error
    try:
        present = {
            name.lower()
            for (name,) in connection.execute(
                "select table_name from information_schema.tables where table_schema = ?", [schema]
            ).fetchall()
        }
        return {
            mart.name: _read_relation(connection, f"{_quote(schema)}.{_quote(mart.name)}")
            for mart in marts
            if mart.name in present
        }
    finally:
        connection.close()


def read_postgres(settings: PostgresSettings, marts: list[Mart]) -> Tables:
    """The marts found in settings.schema of a PostgreSQL database (needs psycopg2-binary)."""
    try:
        import psycopg2
    except ImportError as error:
        raise ParityInputError("psycopg2 is not installed: pip install psycopg2-binary") from error
    try:
        connection = psycopg2.connect(
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            dbname=settings.dbname,
            connect_timeout=10,
        )
    except psycopg2.OperationalError as error:
        where = f"{settings.user}@{settings.host}:{settings.port}/{settings.dbname}"
        raise ParityInputError(f"cannot connect to PostgreSQL {where}: {str(error).strip().splitlines()[0]}") from error
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select table_name from information_schema.tables where table_schema = %s", [settings.schema]
            )
            present = {name.lower() for (name,) in cursor.fetchall()}
        return {
            mart.name: _read_relation(connection, f"{_quote(settings.schema)}.{_quote(mart.name)}")
            for mart in marts
            if mart.name in present
        }
    finally:
        connection.close()


def _data_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """Parquet files below folder, and other data files, skipping Spark's hidden `_*` and `.*` files."""
    parquet, other = [], []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).parts
        if not path.is_file() or any(part.startswith(("_", ".")) for part in relative):
            continue
        (parquet if path.name.endswith(".parquet") else other).append(path)
    return parquet, other


def read_spark(warehouse: Path | str, schema: str, marts: list[Mart]) -> Tables:
    """The marts that dbt-spark (session method, parquet) wrote under `<warehouse>/<schema>.db/<mart>/`."""
    warehouse = Path(warehouse)
    if not warehouse.is_dir():
        raise ParityInputError(f"Spark warehouse folder {warehouse} does not exist")
    schema_dir = warehouse / f"{schema}.db"
    if not schema_dir.is_dir():
        raise ParityInputError(f"Spark schema folder {schema_dir} does not exist")
    tables: Tables = {}
    connection = duckdb.connect()
    try:
        connection.execute("set TimeZone = 'UTC'")
        for mart in marts:
            folder = schema_dir / mart.name
            if not folder.is_dir():
                continue
            parquet, other = _data_files(folder)
            if other and not parquet:
                raise ParityInputError(f"{folder} holds no parquet files: is the model's file_format parquet?")
            if not parquet:
                tables[mart.name] = []
                continue
            files = "[" + ", ".join("'" + str(path).replace("'", "''") + "'" for path in parquet) + "]"
            tables[mart.name] = _read_relation(connection, f"read_parquet({files}, union_by_name = true)")
    finally:
        connection.close()
    return tables


def values_equal(a: Any, b: Any) -> bool:
    """Whether two normalised values are the same figure (floats within REL_TOL / ABS_TOL)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return type(a) is type(b) and a == b


def json_equal(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same document: each engine hands JSON back its own way
    (DuckDB text, PostgreSQL parsed jsonb with its own key order, Spark's variant with decimals),
    so both are parsed and compared as values (numbers as numbers: `1e3` equals `1000`)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, list):
            return [plain(item) for item in value]
        return float(value) if isinstance(value, Decimal) else value

    def document(value: Any) -> Any:
        return plain(json.loads(value) if isinstance(value, str | bytes) else value)

    return document(a) == document(b)


def format_key(key: tuple[str, ...], values: tuple) -> str:
    """A row's key as `col=value, ...`."""
    return ", ".join(
        f"{column}={'NULL' if value is None else value}" for column, value in zip(key, values, strict=True)
    )


def _index(rows: Rows, key: tuple[str, ...]) -> tuple[dict[tuple, dict], dict[tuple, int]]:
    """Rows by key value, and the keys that occur more than once with their counts."""
    by_key: dict[tuple, dict] = {}
    counts: dict[tuple, int] = {}
    for row in rows:
        value = tuple(row.get(column) for column in key)
        counts[value] = counts.get(value, 0) + 1
        by_key.setdefault(value, row)
    return by_key, {value: count for value, count in counts.items() if count > 1}


def _ordered_columns(mart: Mart, reference_rows: Rows, candidate_rows: Rows) -> tuple[list[str], set, set]:
    """Columns to compare (the YAML's order, then any others), and those each side has.

    A side's columns are read from its first row; a side without rows is taken to have them all.
    """
    sides = [set(rows[0]) if rows else None for rows in (reference_rows, candidate_rows)]
    seen = set(mart.columns).union(*(columns for columns in sides if columns is not None)) - set(mart.uncompared)
    ordered = list(mart.columns) + sorted(seen - set(mart.columns))
    reference_columns, candidate_columns = (seen if columns is None else columns for columns in sides)
    return ordered, reference_columns, candidate_columns


def compare_table(
    mart: Mart, reference_rows: Rows, candidate_rows: Rows, reference_name: str, candidate_name: str
) -> list[Difference]:
    """The differences between one mart's rows on two engines, rows matched on the mart's key."""
    found: list[Difference] = []

    def difference(problem: str, **fields: Any) -> None:
        found.append(Difference(reference_name, candidate_name, mart.name, problem, **fields))

    columns, reference_columns, candidate_columns = _ordered_columns(mart, reference_rows, candidate_rows)
    for column in columns:
        for name, has in ((reference_name, reference_columns), (candidate_name, candidate_columns)):
            if column not in has:
                difference("missing column", column=column, side=name)
    shared = [column for column in columns if column in reference_columns and column in candidate_columns]

    reference_index, reference_duplicates = _index(reference_rows, mart.key)
    candidate_index, candidate_duplicates = _index(candidate_rows, mart.key)
    for name, duplicates in ((reference_name, reference_duplicates), (candidate_name, candidate_duplicates)):
        for value, count in duplicates.items():
            difference("duplicate key", key=format_key(mart.key, value), count=count, side=name)
    for value, reference_row in reference_index.items():
        key = format_key(mart.key, value)
        if value not in candidate_index:
            difference("missing row", key=key, side=candidate_name)
            continue
        if value in reference_duplicates or value in candidate_duplicates:
            continue
        candidate_row = candidate_index[value]
        for column in shared:
            same = (
                json_equal(reference_row[column], candidate_row[column])
                if column in mart.json_columns
                else values_equal(reference_row[column], candidate_row[column])
            )
            if not same:
                difference(
                    "value",
                    key=key,
                    column=column,
                    reference_value=reference_row[column],
                    candidate_value=candidate_row[column],
                )
    for value in candidate_index:
        if value not in reference_index:
            difference("missing row", key=format_key(mart.key, value), side=reference_name)
    return found


def compare(
    reference: Tables,
    candidate: Tables,
    marts: list[Mart],
    reference_name: str = "reference",
    candidate_name: str = "candidate",
) -> list[Difference]:
    """Every difference between two engines' marts: missing tables, columns or rows, duplicate keys, values."""
    found: list[Difference] = []
    for mart in marts:
        missing = [
            name
            for name, tables in ((reference_name, reference), (candidate_name, candidate))
            if mart.name not in tables
        ]
        for name in missing:
            found.append(Difference(reference_name, candidate_name, mart.name, "missing table", side=name))
        if not missing:
            found.extend(
                compare_table(mart, reference[mart.name], candidate[mart.name], reference_name, candidate_name)
            )
    return found
