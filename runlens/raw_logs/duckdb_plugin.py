"""The dbt-duckdb plugin that lets SQL read the raw folder (profiles.yml, `plugins`).

On dbt's connection it first attaches the database file, RUNLENS_DB read at that moment, as the
catalog the profile names (runlens/database.py: so the database is no part of what dbt parses),
and on every DuckDB connection dbt opens, it registers:

- `runlens_list_log_files()`: every log file below the raw folder (listing.py), as a list of
  structs with file_path, absolute_path, size_bytes, modified_at, is_gzip, file_fingerprint and
  reads_natively (whether DuckDB reads the file itself, handover.py; the folder is listed here
  anyway, so no file has to come back to Python to be sorted).
  The source `runlens_logs.log_files` (models/staging/_runlens_logs__sources.yml) unnests it. The
  folder is `RUNLENS_RAW_DIR` (default `data/sample`), read when the build lists it, not when dbt
  parses the project: pointing a build at another folder costs dbt no parsing.
- `runlens_stage_log_texts(files)`: hands the files over (a list of structs with absolute_path,
  file_fingerprint and size_bytes; handover.py): a file DuckDB reads itself gets one struct with
  is_native true; any other is read here and its text written into chunk files that DuckDB reads
  with `read_text`, one struct per chunk. stg_log_lines' pre-hook calls it with the files it has
  to read, and its post-hook calls `runlens_remove_staged_log_texts(text_paths)`.
- `runlens_escaped_log_text(content)`: the text of a file's bytes that DuckDB read but could not
  decode as UTF-8, each invalid line escaped, with the numbers of those lines (reading.py).
- `runlens_raw_dir()`: the raw folder's absolute path, and `runlens_pinned_as_of()`: the time
  `RUNLENS_AS_OF` or the folder's runlens_as_of.txt pins (as_of.py), else NULL. The build context
  (macros/build_context.sql) reads both when the build runs, so neither costs dbt any parsing when
  it changes.
- `runlens_collections()`: the rows of the folder's collections file (folder_metadata.py), as a
  list of structs of the five text columns, for stg_collections (macros/staging/collections.sql).

The listing raises RawFolderError on a user mistake (a raw folder that does not exist, is a file
or cannot be read) with one line that says what to do. DuckDB and then dbt put their own words
before a function's error, so the plugin puts that line, prefixed `runlens: ` as `runlens build`
prints it, on a line of its own in the error dbt shows for stg_log_lines.
"""

from __future__ import annotations

import os

import duckdb
from dbt.adapters.duckdb.plugins import BasePlugin

from runlens.database import attach_database, attaches_database, use_database
from runlens.raw_logs.as_of import AsOfError, pinned_as_of
from runlens.raw_logs.folder_metadata import COLUMNS as COLLECTION_COLUMNS
from runlens.raw_logs.folder_metadata import MetadataError, read_collections
from runlens.raw_logs.handover import native_reads, remove_staged_texts, stage_texts
from runlens.raw_logs.listing import RawFolderError, list_log_files, raw_dir
from runlens.raw_logs.reading import escaped_text

LOG_FILE_TYPE = duckdb.struct_type(
    {
        "file_path": duckdb.sqltype("VARCHAR"),
        "absolute_path": duckdb.sqltype("VARCHAR"),
        "size_bytes": duckdb.sqltype("BIGINT"),
        "modified_at": duckdb.sqltype("TIMESTAMP"),
        "is_gzip": duckdb.sqltype("BOOLEAN"),
        "file_fingerprint": duckdb.sqltype("VARCHAR"),
        "reads_natively": duckdb.sqltype("BOOLEAN"),
    }
)
COLLECTION_TYPE = duckdb.struct_type({column: duckdb.sqltype("VARCHAR") for column in COLLECTION_COLUMNS})
FILE_TO_READ_TYPE = duckdb.struct_type(
    {
        "absolute_path": duckdb.sqltype("VARCHAR"),
        "file_fingerprint": duckdb.sqltype("VARCHAR"),
        "size_bytes": duckdb.sqltype("BIGINT"),
    }
)
STAGED_CHUNK_TYPE = duckdb.struct_type(
    {
        "absolute_path": duckdb.sqltype("VARCHAR"),
        "text_path": duckdb.sqltype("VARCHAR"),
        "first_line_number": duckdb.sqltype("BIGINT"),
        "invalid_line_numbers": duckdb.list_type(duckdb.sqltype("BIGINT")),
        "read_error": duckdb.sqltype("VARCHAR"),
        "is_native": duckdb.sqltype("BOOLEAN"),
    }
)
ESCAPED_TEXT_TYPE = duckdb.struct_type(
    {"text": duckdb.sqltype("VARCHAR"), "invalid_line_numbers": duckdb.list_type(duckdb.sqltype("BIGINT"))}
)


def log_files() -> list[dict]:
    try:
        listed = [log_file._asdict() for log_file in list_log_files(raw_dir())]
    except RawFolderError as error:
        raise RawFolderError(f"\nrunlens: {error}") from None
    reads_natively = native_reads()
    return [{**log_file, "reads_natively": reads_natively(log_file)} for log_file in listed]


def absolute_raw_dir() -> str:
    return os.path.abspath(raw_dir())


def as_of_pin():
    try:
        return pinned_as_of()
    except (AsOfError, MetadataError) as error:
        raise AsOfError(f"\nrunlens: {error}") from None


def collections() -> list[dict]:
    try:
        return read_collections(raw_dir())
    except MetadataError as error:
        raise MetadataError(f"\nrunlens: {error}") from None


def staged_log_texts(files: list[dict] | None) -> list[dict]:
    return stage_texts(files or [])


def removed_staged_log_texts(text_paths: list[str] | None) -> int:
    return remove_staged_texts(text_paths)


class Plugin(BasePlugin):
    def configure_connection(self, conn):
        if attaches_database(self.creds):  # dbt's connection: the database file, resolved now
            attach_database(conn)
        conn.create_function(
            "runlens_list_log_files",
            log_files,
            [],
            duckdb.list_type(LOG_FILE_TYPE),
            side_effects=True,
        )
        conn.create_function("runlens_raw_dir", absolute_raw_dir, [], duckdb.sqltype("VARCHAR"), side_effects=True)
        conn.create_function(
            "runlens_pinned_as_of",
            as_of_pin,
            [],
            duckdb.sqltype("TIMESTAMP"),
            null_handling="special",
            side_effects=True,
        )
        conn.create_function(
            "runlens_collections",
            collections,
            [],
            duckdb.list_type(COLLECTION_TYPE),
            side_effects=True,
        )
        conn.create_function(
            "runlens_stage_log_texts",
            staged_log_texts,
            [duckdb.list_type(FILE_TO_READ_TYPE)],
            duckdb.list_type(STAGED_CHUNK_TYPE),
            side_effects=True,
            null_handling="special",
        )
        conn.create_function(
            "runlens_escaped_log_text",
            escaped_text,
            [duckdb.sqltype("BLOB")],
            ESCAPED_TEXT_TYPE,
            null_handling="special",
        )
        conn.create_function(
            "runlens_remove_staged_log_texts",
            removed_staged_log_texts,
            [duckdb.list_type(duckdb.sqltype("VARCHAR"))],
            duckdb.sqltype("BIGINT"),
            side_effects=True,
            null_handling="special",
        )

    def configure_cursor(self, cursor):
        if attaches_database(self.creds):
            use_database(cursor)
