"""Rows from Python into DuckDB in one statement (runlens/raw_logs/duckdb_rows.py): every type the
raw tables use arrives as it was given, NULLs included, and many small files' records go in at once."""

from __future__ import annotations

import datetime
import gzip

import duckdb
import pytest

from runlens.raw_logs import duckdb_reader
from runlens.raw_logs.duckdb_rows import insert_rows
from runlens.raw_logs.listing import list_log_files, relative_path

COLUMNS = [
    ("path", "varchar"),
    ("size", "bigint"),
    ("modified_at", "timestamp"),
    ("gzip", "boolean"),
    ("seconds", "double"),
    ("numbers", "bigint[]"),
]


def test_each_column_arrives_as_given_nulls_included():
    connection = duckdb.connect()
    connection.execute(f"create table t ({', '.join(f'{name} {kind}' for name, kind in COLUMNS)})")
    rows = [
        ("a/b.jsonl", 2**40, datetime.datetime(2026, 12, 8, 1, 2, 3, 456789), True, 0.25, [3, 7]),
        ("c 'quoted'.jsonl", None, None, None, None, []),
        (None, -1, datetime.datetime(1970, 1, 1), False, 1e-9, None),
    ]
    insert_rows(connection, "t", COLUMNS, rows)
    assert connection.execute("select * from t order by size nulls first").fetchall() == [rows[1], rows[2], rows[0]]


def test_no_rows_insert_nothing_and_rows_of_another_width_are_refused():
    connection = duckdb.connect()
    connection.execute("create table t (path varchar, size bigint)")
    insert_rows(connection, "t", COLUMNS[:2], [])
    assert connection.execute("select count(*) from t").fetchone() == (0,)
    with pytest.raises(ValueError):
        insert_rows(connection, "t", COLUMNS[:2], [("a", 1, 2)])
    with pytest.raises(ValueError):
        insert_rows(connection, "t", COLUMNS[:2], [("a", 1), ("b",)])


def test_a_path_below_the_folder_is_cut_from_it():
    assert relative_path("/raw", "/raw/a/b.jsonl") == "a/b.jsonl"
    assert relative_path("/", "/a/b.jsonl") == "a/b.jsonl"
    assert relative_path("/raw", "/other/c.jsonl") == "../other/c.jsonl"


def test_many_small_files_read_in_python_go_to_duckdb_a_few_pieces_a_statement(tmp_path, monkeypatch):
    # 40 gzip files (Python reads them) of 3 lines of 20 bytes each: 60 bytes a file, 2,400 in all;
    # with pieces of at most 200 bytes, 3 files a statement: 14 statements (13 of 3 files, 1 of 1), not 40
    raw = tmp_path / "raw"
    raw.mkdir()
    for number in range(40):
        lines = b"".join(b'{"n": %02d, "l": %d}  \n' % (number, line) for line in range(1, 4))
        assert len(lines) == 60
        (raw / f"run-{number:02d}.jsonl.gz").write_bytes(gzip.compress(lines))
    monkeypatch.setenv("RUNLENS_CHUNK_BYTES", "200")
    statements = []
    split = duckdb_reader.split_texts
    monkeypatch.setattr(duckdb_reader, "split_texts", lambda *args: statements.append(1) or split(*args))
    connection = duckdb.connect()
    duckdb_reader.create_tables(connection, "raw")
    errors = duckdb_reader.read_files(connection, "raw", list_log_files(str(raw)))
    assert errors == {}
    assert len(statements) == 14
    lines = connection.execute("select file_path, line_number, text from raw.log_lines order by all").fetchall()
    assert lines == [
        (f"run-{number:02d}.jsonl.gz", line, f'{{"n": {number:02d}, "l": {line}}}  ')
        for number in range(40)
        for line in range(1, 4)
    ]
