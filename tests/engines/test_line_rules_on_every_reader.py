"""One statement of the line rules (models/staging/input_contract.md, "What a line is"), three spellings
of them: `split_lines` in Python (runlens/raw_logs/raw_tables.py, which the PostgreSQL reader splits
with), `LINES_SQL` in DuckDB's SQL (duckdb_reader.py) and `lines_of` in Spark's DataFrame functions
(spark_reader.py). The same hostile bytes go to all three, and every line each gives (its number, its
text, whether it is invalid UTF-8, whether it is blank) must be the line the statement gives, written
again in plain Python in tests/support/line_rules.py; so must each file's read error (none here).

The bytes: every awkward case of tests/support/awkward_files.py (CRLF, lone CR, no final newline, empty
and whitespace-only lines, NUL, invalid and almost-valid UTF-8, byte order marks on line 1 and later,
U+2028, NEL and the other separators that are no LF, lines of 1 and 2 MiB, names Hadoop would read as
patterns), random files of those fragments, and a gzip copy of each one, whose lines are the same.
Each reader reads them both ways it can: DuckDB by itself and from Python in pieces, Spark by itself
and on the driver; the Spark session is started once, for one test.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs import duckdb_reader
from runlens.raw_logs.listing import list_log_files
from runlens.raw_logs.raw_tables import split_lines
from runlens.raw_logs.reading import read_log_text
from tests.support.awkward_files import LINE_EDGES, NASTY, UTF8_EDGES, random_files, write
from tests.support.engines_available import require_spark
from tests.support.line_rules import Line, expected_lines

CASES = {**NASTY, **UTF8_EDGES, **LINE_EDGES, **random_files(3, 40)}
# a file's read error and its lines, by file path
Outcomes = dict[str, tuple[str | None, list[Line]]]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, Outcomes]:
    """The folder of hostile files, each also gzip'd beside itself, and what the line rules make of
    each: no read error, and the lines of its bytes (the gzip copy's are the bytes it holds)."""
    raw = tmp_path_factory.mktemp("hostile")
    expected: Outcomes = {}
    for name, data in CASES.items():
        write(raw, name, data)
        write(raw, f"{name}.gz", gzip.compress(data, mtime=0))
        expected[name] = expected[f"{name}.gz"] = (None, expected_lines(data))
    assert len(list_log_files(str(raw))) == len(expected)  # every case is a log file
    return raw, expected


def differences(got: Outcomes, expected: Outcomes) -> list[str]:
    """The files and lines that differ, a line each (at most 20)."""
    found = [f"{path!r}: missing" for path in sorted(set(expected) - set(got))]
    found += [f"{path!r}: not a case" for path in sorted(set(got) - set(expected))]
    for path in sorted(set(got) & set(expected)):
        (got_error, got_lines), (error, lines) = got[path], expected[path]
        if got_error != error:
            found.append(f"{path!r}: read error {got_error!r}, expected {error!r}")
        by_number = {line.line_number: line for line in lines}
        got_by_number = {line.line_number: line for line in got_lines}
        for number in sorted(set(by_number) | set(got_by_number)):
            line, got_line = by_number.get(number), got_by_number.get(number)
            if got_line != line:
                found.append(f"{path!r} line {number}: {got_line!r}, expected {line!r}")
    return found[:20]


def outcomes_of(files: list[tuple], lines: list[tuple]) -> Outcomes:
    """Outcomes from raw-table rows: files (file_path, read_error), lines (file_path, line_number,
    text, is_invalid_utf8, is_blank)."""
    got: Outcomes = {path: (error, []) for path, error in files}
    for path, *line in sorted(lines, key=lambda row: (row[0], row[1])):
        got[path][1].append(Line(*line))
    return got


def test_split_lines_gives_the_lines_of_the_statement(hostile):
    """Python's spelling, as the PostgreSQL reader uses it: each file's text (reading.py: gzip
    decompressed, invalid lines escaped) split by split_lines. (PostgreSQL then writes a NUL as the six
    characters `\\u0000`, its one difference of storage: input_contract.md, "On PostgreSQL and Spark".)"""
    raw, expected = hostile
    got: Outcomes = {}
    for log_file in list_log_files(str(raw)):
        text, invalid, error = read_log_text(log_file)
        got[log_file.file_path] = (error, [Line(*line) for line in split_lines(text or "", invalid)])
    assert not differences(got, expected), "\n".join(differences(got, expected))


@pytest.mark.parametrize("way", ["by_duckdb", "from_python_in_pieces"])
def test_the_duckdb_reader_gives_the_lines_of_the_statement(hostile, monkeypatch, way):
    """DuckDB's spelling (LINES_SQL), over the files DuckDB reads itself (read_blob) and, the second
    time, over every file read in Python and handed over in pieces of about 1 KB (each cut after a
    line break, so a long line is one piece)."""
    raw, expected = hostile
    if way == "from_python_in_pieces":
        monkeypatch.setenv("RUNLENS_READER", "python")
        monkeypatch.setenv("RUNLENS_CHUNK_BYTES", "1024")
    with duckdb.connect() as connection:
        duckdb_reader.refresh(connection, str(raw), "raw")
        files = connection.execute("select file_path, read_error from raw.log_files").fetchall()
        lines = connection.execute(
            "select file_path, line_number, text, is_invalid_utf8, is_blank from raw.log_lines"
        ).fetchall()
    got = outcomes_of(files, lines)
    assert not differences(got, expected), "\n".join(differences(got, expected))


def test_the_spark_reader_gives_the_lines_of_the_statement(hostile, tmp_path):
    """Spark's spelling (lines_of), over the files Spark reads itself (gzip by Hadoop's codec) and, the
    second time, over every file of more than 1 KB read on the driver and handed to Spark in pieces.
    One local session, started here (about 20 s)."""
    require_spark()
    from pyspark.sql import SparkSession

    from runlens.raw_logs import spark_reader

    raw, expected = hostile
    with pytest.MonkeyPatch.context() as patch:  # the JVM's environment, as it starts
        patch.setenv("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("test_line_rules_on_every_reader")
            .config("spark.driver.memory", "2g")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))
            .getOrCreate()
        )
    try:
        for database, on_the_driver in (("by_spark", False), ("on_the_driver", True)):
            with pytest.MonkeyPatch.context() as patch:
                if on_the_driver:
                    patch.setattr(spark_reader, "LARGEST_SPARK_BYTES", 1024)
                    patch.setattr(spark_reader, "PYTHON_BATCH_BYTES", 64 * 1024)
                    patch.setenv("RUNLENS_CHUNK_BYTES", "1024")
                spark_reader.refresh(spark, str(raw), database)
            files = spark.table(f"{database}.log_files").select("file_path", "read_error").collect()
            lines = [
                tuple(row)
                for row in spark.table(f"{database}.log_lines")
                .select("file_path", "line_number", "text", "is_invalid_utf8", "is_blank")
                .collect()
            ]
            got = outcomes_of([tuple(row) for row in files], lines)
            assert not differences(got, expected), f"{database}:\n" + "\n".join(differences(got, expected))
    finally:
        spark.stop()
