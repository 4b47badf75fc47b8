"""Copy the raw log lines into PostgreSQL from the client, so the server needs no file access.

The files are listed, read, split and decoded by the very code of the DuckDB staging models
(models/staging/raw_duckdb/*.py), run here in an in-memory DuckDB, so every engine sees the same
lines; the rows then travel to the server with COPY. Loading is incremental by file fingerprint,
like the DuckDB model: a new or changed file is (re)loaded whole, a removed file's lines leave,
an unchanged file is not read. Everything happens in one transaction.

PostgreSQL text cannot hold a NUL character: a NUL in a line is written as the six characters
`\\u0000` (input_contract.md), which keeps such a line invalid JSON as it is on DuckDB.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import duckdb

REPO = Path(__file__).resolve().parents[2]
RAW_MODELS = REPO / "models" / "staging" / "raw_duckdb"

RAW_FILES_DDL = """
create table if not exists {schema}.raw_files (
    file_path text, absolute_path text, size_bytes bigint, modified_at timestamp,
    is_gzip boolean, file_fingerprint text
)"""
RAW_LINES_DDL = """
create table if not exists {schema}.raw_lines (
    file_path text, file_fingerprint text, line_number bigint, line_text text, raw_text text,
    is_invalid_utf8 boolean, is_blank boolean, read_error text
)"""
RAW_LINES_INDEX = "create index if not exists raw_lines_file on {schema}.raw_lines (file_path, file_fingerprint)"
NUL_FREE_LINES = (
    "select file_path, file_fingerprint, line_number, replace(line_text, chr(0), '\\u0000'), "
    "replace(raw_text, chr(0), '\\u0000'), is_invalid_utf8, is_blank, read_error from raw_lines_loaded"
)


def load_model_module(name: str) -> ModuleType:
    """Import a DuckDB staging model file as a plain module (its helpers need no dbt)."""
    spec = importlib.util.spec_from_file_location(f"runlens_{name}", RAW_MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class LoadSummary:
    files: int
    loaded_files: int
    loaded_lines: int
    removed_files: int


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def copy_query_to_server(local: duckdb.DuckDBPyConnection, query: str, cursor, table: str, scratch: Path) -> None:
    """COPY the rows of a local DuckDB query into a server table, through a CSV file."""
    csv_path = scratch / "rows.csv"
    local.execute(f"copy ({query}) to '{csv_path}' (format csv, header false)")
    with open(csv_path, encoding="utf-8") as rows:
        cursor.copy_expert(f"copy {table} from stdin with (format csv)", rows)
    csv_path.unlink()


def load(raw_dir: str, connection, schema: str) -> LoadSummary:
    """Bring the server's raw tables in step with raw_dir; returns what was done."""
    files_model = load_model_module("stg_raw_files")
    lines_model = load_model_module("stg_raw_lines")
    raw_dir = os.path.abspath(raw_dir)
    inventory = [files_model.inventory_row(raw_dir, path) for path in files_model.find_log_files(raw_dir)]
    target = quoted(schema)
    local = duckdb.connect()
    local.execute("set TimeZone = 'UTC'")
    local.execute(f"create table inventory ({files_model.INVENTORY_COLUMNS})")
    if inventory:
        columns = [list(column) for column in zip(*inventory, strict=True)]
        placeholders = ", ".join(f"unnest(${number})" for number in range(1, len(columns) + 1))
        local.execute(f"insert into inventory select {placeholders}", columns)
    local.execute(f"create temp table raw_batch_content ({lines_model.CONTENT_COLUMNS})")
    local.execute(f"create temp table raw_lines_loaded ({lines_model.LINE_COLUMNS})")
    with connection, connection.cursor() as cursor, tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        cursor.execute(f"create schema if not exists {target}")
        cursor.execute(RAW_FILES_DDL.format(schema=target))
        cursor.execute(RAW_LINES_DDL.format(schema=target))
        cursor.execute(RAW_LINES_INDEX.format(schema=target))
        cursor.execute(f"select file_path, file_fingerprint from {target}.raw_lines where line_number = 0")
        loaded = set(cursor.fetchall())
        current = {(row[0], row[5]) for row in inventory}
        stale = loaded - current
        cursor.execute(f"truncate {target}.raw_files")
        copy_query_to_server(local, "select * from inventory", cursor, f"{target}.raw_files", scratch)
        cursor.execute("create temp table current_files (file_path text, file_fingerprint text) on commit drop")
        copy_query_to_server(
            local, "select file_path, file_fingerprint from inventory", cursor, "current_files", scratch
        )
        cursor.execute(
            f"delete from {target}.raw_lines as lines where not exists (select 1 from current_files as files "
            "where files.file_path = lines.file_path and files.file_fingerprint = lines.file_fingerprint)"
        )
        todo = [(row[0], row[1], row[5], row[2]) for row in inventory if (row[0], row[5]) not in loaded]
        loaded_lines = 0
        for batch in lines_model.batches(todo):
            local.execute("delete from raw_lines_loaded")
            lines_model.load_batch(local, batch)
            loaded_lines += local.execute("select count(*) from raw_lines_loaded where line_number > 0").fetchone()[0]
            copy_query_to_server(local, NUL_FREE_LINES, cursor, f"{target}.raw_lines", scratch)
        cursor.execute(f"analyze {target}.raw_lines")
    local.close()
    return LoadSummary(
        files=len(inventory),
        loaded_files=len(todo),
        loaded_lines=loaded_lines,
        removed_files=len({path for path, _ in stale} - {path for path, _ in current}),
    )
