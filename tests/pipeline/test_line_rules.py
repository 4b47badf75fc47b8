"""The line rules, end to end: files of every awkward kind are read by the real pipeline (a dbt
build: the DuckDB reader in runlens/raw_logs) and every row of stg_log_lines is compared with the
line rules (models/staging/input_contract.md, "What a line is") written again in plain Python
(tests/support/line_rules.py): a blank line has no raw_text, an invalid one is rejected as
invalid_utf8 with its escaped form (checked against DuckDB's own cast, byte by byte), and one file
record (line_number 0) per file carries the read_error. tests/engines/test_line_rules_on_every_reader.py
holds the three readers' own spellings of the rules to the same statement.

No line here is a valid event (none has a ts), so every non-blank line is rejected and keeps its
text in raw_text. The reader's own promises (chunked UTF-8 checks, gzip members, files that vanish)
are checked in-process, without dbt.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs import reading
from runlens.raw_logs.listing import list_log_files
from tests.support.awkward_files import GZIP, NASTY, RANDOM, J, write
from tests.support.line_rules import escaped, expected_lines, gzip_members
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt


def stg_lines(data: bytes) -> list[tuple]:
    """[(line_number, raw_text or None for a blank line, is_invalid_utf8, is_blank)], as stg_log_lines
    gives a file's lines (the line rules, tests/support/line_rules.py)."""
    return [
        (line.line_number, None if line.is_blank else line.text, line.is_invalid_utf8, line.is_blank)
        for line in expected_lines(data)
    ]


@prebuilt()
def nasty_build(builds: Prebuilds) -> Path:
    """The database built over files of every awkward kind."""
    raw = builds.mktemp("nasty")
    for name, data in {**NASTY, **RANDOM}.items():
        write(raw, name, data)
    for name, (data, _) in GZIP.items():
        write(raw, name, data)
    truncated = J + b"\n" + b"\xff\n" + os.urandom(20000).hex().encode() + b"\n"
    write(raw, "truncated.jsonl.gz", gzip.compress(truncated)[:-200])
    write(raw, "corrupt.jsonl.gz", gzip.compress(J + b"\n") + b"\x1f\x8b\x08\x00garbage" * 10)
    write(raw, "not_gzip.jsonl.gz", J + b"\n")
    os.mkfifo(raw / "pipe.jsonl")
    os.symlink("/nonexistent/target.jsonl", raw / "dangling.jsonl")
    database = builds.mktemp("nasty_db") / DATABASE
    build(PROJECT, raw, database)
    return database


@pytest.fixture(scope="module")
def loaded(nasty_build):
    """{file_path: (read_error, [(line_number, raw_text, is_invalid_utf8, is_blank)])} from stg_log_lines."""
    rows = {}
    with duckdb.connect(str(nasty_build), read_only=True) as connection:
        query = (
            "select file_path, line_number, raw_text, reject_reason, is_blank, read_error"
            " from stg_log_lines order by file_path, line_number"
        )
        for path, number, raw_text, reason, blank, error in connection.execute(query).fetchall():
            if number == 0:
                assert path not in rows
                rows[path] = (error, [])
            else:
                assert error is None and (blank or reason is not None), (path, number)
                rows[path][1].append((number, raw_text, reason == "invalid_utf8", blank))
    return rows


@pytest.mark.parametrize("name", list(NASTY), ids=repr)
def test_plain_file_lines(loaded, name):
    assert loaded[name] == (None, stg_lines(NASTY[name]))


def test_random_files(loaded):
    for name, data in RANDOM.items():
        assert loaded[name] == (None, stg_lines(data)), name


@pytest.mark.parametrize("name", list(GZIP), ids=repr)
def test_gzip_file_lines(loaded, name):
    data, error = GZIP[name]
    assert loaded[name] == (error, stg_lines(gzip_members(data)))


def test_faulty_gzip_files_keep_what_was_decoded(loaded):
    error, lines = loaded["truncated.jsonl.gz"]
    assert error == "truncated_gzip"
    assert lines[:2] == [(1, J.decode(), False, False), (2, "\\xFF", True, False)]
    error, lines = loaded["corrupt.jsonl.gz"]
    assert error.startswith("corrupt_gzip: ") and lines == stg_lines(J + b"\n")
    assert loaded["not_gzip.jsonl.gz"][0].startswith("corrupt_gzip: ")


def test_files_that_cannot_be_read_have_only_their_record(loaded):
    assert loaded["dangling.jsonl"] == ("unreadable: cannot stat", [])
    assert loaded["pipe.jsonl"] == ("unreadable: not a regular file", [])


def test_a_file_gone_after_the_listing_has_only_its_read_error(tmp_path):
    for name in ("kept.jsonl", "gone.jsonl", "now_a_folder.jsonl"):
        (tmp_path / name).write_bytes(b"a\n\xff\n")
    log_files = list_log_files(str(tmp_path))
    (tmp_path / "gone.jsonl").unlink()
    (tmp_path / "now_a_folder.jsonl").unlink()
    (tmp_path / "now_a_folder.jsonl").mkdir()
    texts = {log_file.file_path: reading.read_log_text(log_file) for log_file in log_files}
    assert texts == {
        "gone.jsonl": (None, [], "unreadable: No such file or directory"),
        "kept.jsonl": ("a\n\\xFF\n", [2], None),
        "now_a_folder.jsonl": (None, [], "unreadable: Is a directory"),
    }


def test_escaped_bytes_are_duckdbs_blob_to_text_cast():
    connection = duckdb.connect()
    for byte in range(256):
        cast = connection.execute("select ?::blob::varchar", [bytes([byte, 0x41])]).fetchone()[0]
        assert reading.escaped_line(bytes([byte, 0x41])).decode() == cast == escaped(bytes([byte, 0x41]))


def line_by_line(data: bytes) -> tuple[bytes, list[int]]:
    """text_with_escaped_lines as a plain loop over the lines."""
    lines, invalid = data.split(b"\n"), []
    for index, line in enumerate(lines):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            lines[index] = reading.escaped_line(line)
            invalid.append(index + 1)
    return b"\n".join(lines), invalid


@pytest.mark.parametrize("chunk_bytes", [1, 5, 64, 16 * 1024])
def test_utf8_checked_in_chunks_as_line_by_line(monkeypatch, chunk_bytes):
    monkeypatch.setattr(reading, "UTF8_CHECK_BYTES", chunk_bytes)
    for data in [*NASTY.values(), *RANDOM.values()]:
        assert reading.text_with_escaped_lines(data) == line_by_line(data)
