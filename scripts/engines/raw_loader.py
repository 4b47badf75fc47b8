"""Copy the raw log files into PostgreSQL from the client, so the server needs no file access.

The files are listed and read by the same code as on DuckDB (runlens/raw_logs: listing.py,
reading.py), so every engine starts from the same text; the server splits the text into lines by
the same line rules (macros/staging/log_lines.sql). The table `<raw schema>.log_files` holds one
row per log file: the listing's columns and the file's text, its invalid line numbers and its read
error. Loading is incremental by file fingerprint, as on DuckDB: a new or changed file is read
whole, a removed file's row leaves, an unchanged file is not read. Everything happens in one
transaction, with the rows travelling by COPY.

PostgreSQL text cannot hold a NUL character: a NUL in a line is written as the six characters
`\\u0000` (input_contract.md), which keeps such a line invalid JSON as it is on DuckDB.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from runlens.raw_logs.listing import list_log_files
from runlens.raw_logs.reading import read_log_text

LOG_FILES_DDL = """
create table if not exists {schema}.log_files (
    file_path text, absolute_path text, size_bytes bigint, modified_at timestamp, is_gzip boolean,
    file_fingerprint text, text text, invalid_line_numbers bigint[], read_error text
)"""
COLUMNS = (
    "file_path, absolute_path, size_bytes, modified_at, is_gzip, file_fingerprint, text, "
    "invalid_line_numbers, read_error"
)
BATCH_BYTES = 64 * 1024 * 1024  # file text sent by one COPY


@dataclass
class LoadSummary:
    files: int
    loaded_files: int
    loaded_lines: int
    removed_files: int


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def csv_field(value) -> str:
    """A CSV field for COPY: NULL unquoted and empty, anything else quoted (so '' stays '')."""
    if value is None:
        return ""
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif isinstance(value, list):
        value = "{" + ",".join(str(number) for number in value) + "}"
    return '"' + str(value).replace('"', '""') + '"'


def copy_rows(cursor, table: str, rows: list[tuple]) -> None:
    """COPY rows into a server table as CSV."""
    text = "".join(",".join(csv_field(value) for value in row) + "\n" for row in rows)
    cursor.copy_expert(f"copy {table} ({COLUMNS}) from stdin with (format csv)", io.StringIO(text))


def load(raw_dir: str, connection, schema: str) -> LoadSummary:
    """Bring the server's log_files table in step with raw_dir; returns what was done."""
    log_files = list_log_files(raw_dir)
    target = quoted(schema)
    with connection, connection.cursor() as cursor:
        cursor.execute(f"create schema if not exists {target}")
        cursor.execute(LOG_FILES_DDL.format(schema=target))
        cursor.execute(f"select file_path, file_fingerprint from {target}.log_files")
        loaded = set(cursor.fetchall())
        current = {(log_file.file_path, log_file.file_fingerprint) for log_file in log_files}
        stale = loaded - current
        for file_path, file_fingerprint in stale:
            cursor.execute(
                f"delete from {target}.log_files where file_path = %s and file_fingerprint = %s",
                (file_path, file_fingerprint),
            )
        todo = [log_file for log_file in log_files if (log_file.file_path, log_file.file_fingerprint) not in loaded]
        batch, held, loaded_lines = [], 0, 0
        for log_file in todo:
            log_text = read_log_text(log_file.absolute_path, log_file.file_fingerprint)
            text = None if log_text.text is None else log_text.text.replace("\x00", "\\u0000")
            loaded_lines += 0 if text is None else text.count("\n") + (not text.endswith("\n") and text != "")
            batch.append((*log_file, text, log_text.invalid_line_numbers, log_text.read_error))
            held += len(text or "")
            if held >= BATCH_BYTES:
                copy_rows(cursor, f"{target}.log_files", batch)
                batch, held = [], 0
        if batch:
            copy_rows(cursor, f"{target}.log_files", batch)
        cursor.execute(f"analyze {target}.log_files")
    return LoadSummary(
        files=len(log_files),
        loaded_files=len(todo),
        loaded_lines=loaded_lines,
        removed_files=len({path for path, _ in stale} - {path for path, _ in current}),
    )
