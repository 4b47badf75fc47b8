"""The DuckDB reader: brings the raw tables (raw_tables.py) in step with the raw folder, in one
transaction on the connection it is given (the build's: the dbt-duckdb plugin's when dbt builds,
runlens' own when it runs dbt's plan itself).

DuckDB reads a plain file itself (`read_blob`, handover.py decides which) and splits its text into
lines by the line rules in SQL (LINES_SQL); a file it cannot take whole (gzip, too large, not
readable by this user, a name DuckDB would read as a pattern) or whose bytes are not valid UTF-8
is read here (reading.py: decompressed, each invalid line escaped) and handed to DuckDB as text,
a piece of at most handover.PIECE_BYTES at a time, to split the same way.
"""

from __future__ import annotations

import os
from datetime import datetime

import duckdb

from runlens.raw_logs.as_of import pinned_as_of
from runlens.raw_logs.duckdb_rows import insert_rows
from runlens.raw_logs.duckdb_traces import refresh_traces, traces_unchanged
from runlens.raw_logs.folder_metadata import read_collections
from runlens.raw_logs.handover import chunk_bytes, chunks, native_reads
from runlens.raw_logs.listing import LogFile, list_log_files
from runlens.raw_logs.raw_tables import TABLES, ReadSummary, loaded_at_now, log_file_row, plan_reading
from runlens.raw_logs.reading import read_log_bytes

BATCH_BYTES = 256 * 1024 * 1024  # file bytes DuckDB reads in one statement

# One file's (or piece's) text in `texts`; its lines by the line rules, in DuckDB's SQL. The rules are
# stated once (models/staging/input_contract.md, "What a line is");
# tests/engines/test_line_rules_on_every_reader.py holds this spelling of them, Python's
# (raw_tables.split_lines) and Spark's (spark_reader.lines_of) to that statement.
LINES_SQL = """
insert into {schema}.log_lines
select
    file_path,
    file_fingerprint,
    line_number,
    case when is_invalid_utf8 then piece else line_text end as text,
    is_invalid_utf8,
    not is_invalid_utf8 and (
        line_text = ''
        or (
            left(line_text, 1) in (' ', chr(9), chr(11), chr(12), chr(13))
            and regexp_full_match(line_text, '[ \\t\\x0B\\x0C\\r]*')
        )
    ) as is_blank
from (
    select
        file_path,
        file_fingerprint,
        line_number,
        piece,
        is_invalid_utf8,
        case
            when suffix(first_line_free, chr(13)) then left(first_line_free, -1) else first_line_free
        end as line_text
    from (
        select
            *,
            case when line_number = 1 then ltrim(piece, chr(65279)) else piece end as first_line_free,
            coalesce(list_contains(invalid_line_numbers, line_number), false) as is_invalid_utf8
        from (
            select
                file_path,
                file_fingerprint,
                invalid_line_numbers,
                first_line_number - 1 + generate_subscripts(pieces, 1)::bigint as line_number,
                first_line_number - 1 + len(pieces) as last_piece_number,
                unnest(pieces) as piece
            from (
                select *, string_split(text, chr(10)) as pieces
                from texts
                where text is not null
            ) as split_texts
        ) as numbered
        where not (line_number = last_piece_number and piece = '')
    ) as physical_lines
) as cleaned_lines
"""


# How DuckDB stores a raw column where its own choice costs more: the lines' text in zstd, which
# JSON lines (the same keys line after line) shrink about 4x against DuckDB's dictionary and FSST,
# and which writes faster (docs/performance.md, "The raw text in zstd"); a smaller database is also
# a shorter copy at every refresh (runlens/refresh/build.py).
COMPRESSION = {("log_lines", "text"): "zstd"}


def column_definition(table: str, name: str, kind: str) -> str:
    compression = COMPRESSION.get((table, name))
    return f"{name} {kind}" + (f" using compression {compression}" if compression else "")


def create_tables(connection: duckdb.DuckDBPyConnection, schema: str) -> None:
    connection.execute(f"create schema if not exists {schema}")
    for table, columns in TABLES.items():
        listed = ", ".join(column_definition(table, name, kind) for name, kind in columns)
        connection.execute(f"create table if not exists {schema}.{table} ({listed})")


def loaded_files(connection: duckdb.DuckDBPyConnection, schema: str) -> dict[str, str]:
    return dict(connection.execute(f"select file_path, file_fingerprint from {schema}.log_files").fetchall())


def forget(connection: duckdb.DuckDBPyConnection, schema: str, file_paths: list[str]) -> None:
    if not file_paths:
        return
    connection.execute("create or replace temp table forgotten (file_path varchar)")
    insert_rows(connection, "forgotten", [("file_path", "varchar")], [(path,) for path in file_paths])
    for table in ("log_files", "log_lines"):
        connection.execute(f"delete from {schema}.{table} where file_path in (select file_path from forgotten)")
    connection.execute("drop table forgotten")


def split_texts(connection: duckdb.DuckDBPyConnection, schema: str) -> None:
    """The lines of the texts in the temp table `texts` into log_lines; `texts` emptied."""
    connection.execute(LINES_SQL.format(schema=schema))
    connection.execute("delete from texts")


def read_natively(connection: duckdb.DuckDBPyConnection, schema: str, files: list[LogFile]) -> list[LogFile]:
    """DuckDB reads the files (read_blob), a batch of at most BATCH_BYTES at a time, into lines;
    returns the files it could not: bytes that are not valid UTF-8, or every file of a batch that
    failed (a file gone or no longer readable since the listing)."""
    left: list[LogFile] = []
    batch: list[LogFile] = []
    held = 0
    for log_file in [*files, None]:
        if log_file is not None and (not batch or held + (log_file.size_bytes or 0) <= BATCH_BYTES):
            batch.append(log_file)
            held += log_file.size_bytes or 0
            continue
        if batch:
            left += read_batch(connection, schema, batch)
        batch, held = ([log_file], log_file.size_bytes or 0) if log_file is not None else ([], 0)
    return left


def read_batch(connection: duckdb.DuckDBPyConnection, schema: str, batch: list[LogFile]) -> list[LogFile]:
    by_path = {log_file.absolute_path: log_file for log_file in batch}
    connection.execute(
        "create or replace temp table native_files (absolute_path varchar, file_path varchar, file_fingerprint varchar)"
    )
    insert_rows(
        connection,
        "native_files",
        [("absolute_path", "varchar"), ("file_path", "varchar"), ("file_fingerprint", "varchar")],
        [(log_file.absolute_path, log_file.file_path, log_file.file_fingerprint) for log_file in batch],
    )
    try:
        connection.execute(
            "insert into texts select files.file_path, files.file_fingerprint, 1, "
            "try(decode(blobs.content)), []::bigint[] "
            "from read_blob(?) as blobs inner join native_files as files on blobs.filename = files.absolute_path",
            [[log_file.absolute_path for log_file in batch]],
        )
    except duckdb.IOException:
        connection.execute("delete from texts")
        return batch
    undecoded = [
        by_path[path]
        for (path,) in connection.execute(
            "select files.absolute_path from texts inner join native_files as files using (file_path) "
            "where texts.text is null"
        ).fetchall()
    ]
    split_texts(connection, schema)
    connection.execute("drop table native_files")
    return undecoded


TEXTS_COLUMNS = [
    ("file_path", "varchar"),
    ("file_fingerprint", "varchar"),
    ("first_line_number", "bigint"),
    ("text", "varchar"),
    ("invalid_line_numbers", "bigint[]"),
]


def read_in_python(connection: duckdb.DuckDBPyConnection, schema: str, files: list[LogFile]) -> dict[str, str]:
    """The files read here (reading.py), handed to DuckDB in pieces; the pieces of many small files
    go in one statement, at most about a piece's bytes at a time (a statement per file cost 4 ms,
    10 s over the 2,400 gzip files of a folder of 100k runs). The read error of each file that has one."""
    errors: dict[str, str] = {}
    size = chunk_bytes()
    pending: list[tuple] = []
    held = 0
    for log_file in sorted(files, key=lambda log_file: log_file.file_path):
        data, invalid, error = read_log_bytes(log_file)
        if error is not None:
            errors[log_file.file_path] = error
        for first_line, piece in chunks(data or b"", size):
            if pending and held + len(piece) > size:
                hand_over(connection, schema, pending)
                pending, held = [], 0
            last_line = first_line + piece.count(b"\n")
            in_piece = [number for number in invalid if first_line <= number <= last_line]
            pending.append((log_file.file_path, log_file.file_fingerprint, first_line, piece.decode("utf-8"), in_piece))
            held += len(piece)
    hand_over(connection, schema, pending)
    return errors


def hand_over(connection: duckdb.DuckDBPyConnection, schema: str, pieces: list[tuple]) -> None:
    """Pieces (texts rows) into log_lines, in one statement."""
    if pieces:
        insert_rows(connection, "texts", TEXTS_COLUMNS, pieces)
        split_texts(connection, schema)


def read_files(connection: duckdb.DuckDBPyConnection, schema: str, files: list[LogFile]) -> dict[str, str]:
    """Every file's lines into log_lines; the read error of each file that has one."""
    listed = ", ".join(f"{name} {kind}" for name, kind in TEXTS_COLUMNS)
    connection.execute(f"create or replace temp table texts ({listed})")
    reads_natively = native_reads()
    native = [log_file for log_file in files if reads_natively(log_file)]
    native_paths = {log_file.file_path for log_file in native}
    left = read_natively(connection, schema, native)
    errors = read_in_python(connection, schema, [f for f in files if f.file_path not in native_paths] + left)
    connection.execute("drop table texts")
    return errors


def write_file_records(
    connection: duckdb.DuckDBPyConnection,
    schema: str,
    files: list[LogFile],
    errors: dict[str, str],
    loaded_at: datetime,
) -> None:
    if not files:
        return
    insert_rows(
        connection,
        f"{schema}.log_files",
        TABLES["log_files"],
        [log_file_row(log_file, errors, loaded_at) for log_file in files],
    )


def write_folder_context(
    connection: duckdb.DuckDBPyConnection, schema: str, raw_dir: str, started_at: datetime
) -> None:
    """The collections file's rows and the build context, both replaced."""
    collections = read_collections(raw_dir)
    connection.execute(f"delete from {schema}.collections")
    if collections:
        columns = TABLES["collections"]
        rows = [[row.get(name) for name, _ in columns] for row in collections]
        insert_rows(connection, f"{schema}.collections", columns, rows)
    connection.execute(f"delete from {schema}.build_context")
    connection.execute(
        f"insert into {schema}.build_context values (?, ?, ?, null)",
        [os.path.abspath(raw_dir), started_at, pinned_as_of(raw_dir)],
    )


def write_reading_error(connection: duckdb.DuckDBPyConnection, raw_dir: str, schema: str, error: str) -> None:
    """The build context of a reading that could not be done: the line that says what to do."""
    create_tables(connection, schema)
    connection.execute(f"delete from {schema}.build_context")
    connection.execute(
        f"insert into {schema}.build_context values (?, ?, null, ?)", [os.path.abspath(raw_dir), loaded_at_now(), error]
    )


def refresh(connection: duckdb.DuckDBPyConnection, raw_dir: str, schema: str, *, full: bool = False) -> ReadSummary:
    """Bring the raw tables in schema in step with raw_dir (every file read again when full);
    raises RawFolderError, AsOfError or MetadataError (one line each) on a folder or metadata file
    that cannot be used, and leaves the tables as they were."""
    started_at = loaded_at_now()
    listed = list_log_files(raw_dir)
    connection.execute("begin transaction")
    try:
        if full:  # every line is read again: the table is made again too, in today's storage (COMPRESSION)
            connection.execute(f"drop table if exists {schema}.log_lines")
        create_tables(connection, schema)
        plan = plan_reading(listed, loaded_files(connection, schema), full)
        forget(connection, schema, plan.to_forget + [log_file.file_path for log_file in plan.to_read])
        before = connection.execute(f"select count(*) from {schema}.log_lines").fetchone()[0]
        errors = read_files(connection, schema, plan.to_read)
        read_lines = connection.execute(f"select count(*) from {schema}.log_lines").fetchone()[0] - before
        write_file_records(connection, schema, plan.to_read, errors, started_at)
        refresh_traces(connection, schema, raw_dir, started_at, full=full)
        write_folder_context(connection, schema, raw_dir, started_at)
        connection.execute(f"delete from {schema}.last_build")
        connection.execute("commit")
    except BaseException:
        connection.execute("rollback")
        raise
    forgotten = len(set(plan.to_forget))
    return ReadSummary(len(listed), len(plan.to_read), read_lines, forgotten)


def folder_unchanged(
    connection: duckdb.DuckDBPyConnection, raw_dir: str, schema: str, *, clock_may_move: bool = False
) -> bool:
    """Whether reading raw_dir now would change nothing in the raw tables but the time of the
    reading: the same files with the same fingerprints, the same collections file, the same
    pinned as-of time (and one is pinned: else every build moves the as-of time), no reading
    error. clock_may_move: whatever the as-of time (pinned or not), the rest the same. False when
    the tables are missing."""
    try:
        loaded = loaded_files(connection, schema)
        context = connection.execute(
            f"select raw_dir, pinned_as_of, reading_error from {schema}.build_context"
        ).fetchall()
        collections = connection.execute(f"select * from {schema}.collections order by collection").fetchall()
        if not traces_unchanged(connection, schema, raw_dir):
            return False
    except duckdb.CatalogException:
        return False
    if clock_may_move:
        if [(raw, error) for raw, _, error in context] != [(os.path.abspath(raw_dir), None)]:
            return False
    else:
        pinned = pinned_as_of(raw_dir)
        if pinned is None or context != [(os.path.abspath(raw_dir), pinned, None)]:
            return False
    columns = [name for name, _ in TABLES["collections"]]
    now = sorted(tuple(row.get(column) for column in columns) for row in read_collections(raw_dir))
    if now != collections:
        return False
    return loaded == {log_file.file_path: log_file.file_fingerprint for log_file in list_log_files(raw_dir)}
