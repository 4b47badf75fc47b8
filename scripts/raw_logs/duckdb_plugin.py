"""The dbt-duckdb plugin that lets SQL read the raw folder (profiles.yml, `plugins`).

On every DuckDB connection dbt opens, it registers:

- `runlens_list_log_files()`: every log file below the raw folder (listing.py), as a list of
  structs with file_path, absolute_path, size_bytes, modified_at, is_gzip and file_fingerprint.
  The source `runlens_logs.log_files` (models/staging/_runlens_logs__sources.yml) unnests it. The
  folder is `RUNLENS_RAW_DIR` (default `data/sample`), read when the build lists it, not when dbt
  parses the project: pointing a build at another folder costs dbt no parsing.
- `runlens_read_log_text(absolute_path, file_fingerprint)`, a scalar function: the file's text
  with its invalid lines escaped, their numbers and the read error (reading.py), as a struct.

Both raise on a user mistake (a raw folder that does not exist) with one line that says what to do.
"""

from __future__ import annotations

import duckdb
from dbt.adapters.duckdb.plugins import BasePlugin

from raw_logs.listing import list_log_files, raw_dir
from raw_logs.reading import read_log_text

LOG_FILE_TYPE = duckdb.struct_type(
    {
        "file_path": duckdb.sqltype("VARCHAR"),
        "absolute_path": duckdb.sqltype("VARCHAR"),
        "size_bytes": duckdb.sqltype("BIGINT"),
        "modified_at": duckdb.sqltype("TIMESTAMP"),
        "is_gzip": duckdb.sqltype("BOOLEAN"),
        "file_fingerprint": duckdb.sqltype("VARCHAR"),
    }
)
LOG_TEXT_TYPE = duckdb.struct_type(
    {
        "text": duckdb.sqltype("VARCHAR"),
        "invalid_line_numbers": duckdb.list_type(duckdb.sqltype("BIGINT")),
        "read_error": duckdb.sqltype("VARCHAR"),
    }
)


def log_files() -> list[dict]:
    return [log_file._asdict() for log_file in list_log_files(raw_dir())]


def log_text(absolute_path: str, file_fingerprint: str) -> dict:
    return read_log_text(absolute_path, file_fingerprint)._asdict()


class Plugin(BasePlugin):
    def configure_connection(self, conn):
        conn.create_function(
            "runlens_list_log_files",
            log_files,
            [],
            duckdb.list_type(LOG_FILE_TYPE),
            side_effects=True,
        )
        conn.create_function(
            "runlens_read_log_text",
            log_text,
            [duckdb.sqltype("VARCHAR"), duckdb.sqltype("VARCHAR")],
            LOG_TEXT_TYPE,
            side_effects=True,
        )
