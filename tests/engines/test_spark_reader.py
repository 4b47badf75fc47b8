"""The Spark reader (runlens/raw_logs/spark_reader.py) writes exactly the raw tables the DuckDB
reader writes for the same folder: the faulty fixture, the bundled sample, a folder of profiler
traces (tests/support/kineto_traces.py's GPU plan in both schemas, two ranks, a trace cut short, one
of awkward texts and numbers, its events loaded in batches of two), and a folder of awkward
files (the line rules' cases of tests/pipeline/test_line_rules.py, gzip files of several members, truncated
and corrupt, names Hadoop would read as patterns or URIs, files that cannot be read), that folder
once more with every file read on the driver in small pieces, and a folder read twice. Every row
and column is compared, timestamps as naive UTC; the time of the reading (loaded_at,
build_started_at) differs between the two readers, and is checked to be one value within each
reader's tables. The plan that splits the texts is checked to stay small and linear.

One local SparkSession serves the module. Without pyspark or java the tests skip, saying why;
RUNLENS_REQUIRE_ENGINES=1 turns that into a failure (tests/engines/test_engine_parity.py).
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs import duckdb_reader
from runlens.raw_logs.listing import RawFolderError, list_log_files
from runlens.raw_logs.raw_tables import TABLES, ReadSummary
from tests.support import kineto_traces
from tests.support.awkward_files import GZIP, NASTY, UTF8_EDGES, J, random_files, write
from tests.support.engines_available import require_spark
from tests.support.pipeline import FAULTY, SAMPLE

# the leading columns that order rows (else all)
KEYS = {"log_files": 1, "log_lines": 2, "collections": 1, "trace_files": 1, "trace_events": 3}
READ_AT = {"log_files": "loaded_at", "trace_files": "loaded_at", "build_context": "build_started_at"}
SPARK_TYPES = {
    "varchar": "string",
    "bigint": "bigint",
    "timestamp": "timestamp",
    "boolean": "boolean",
    "double": "double",
}


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    require_spark()
    from pyspark.sql import SparkSession

    folder = tmp_path_factory.mktemp("spark")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("test_spark_reader")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.warehouse.dir", str(folder / "warehouse"))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={folder}/metastore_db;create=true"
        )
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={folder}")
        .enableHiveSupport()
    )
    with pytest.MonkeyPatch.context() as patch:  # the JVM's environment, as it starts
        # a JVM that lives for a few small jobs: the quick compiler only, a serial GC
        patch.setenv("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        session = builder.getOrCreate()
    yield session
    session.stop()


def awkward_folder(root: Path) -> Path:
    """Files of every awkward kind, in a folder whose own name Hadoop would read as a pattern."""
    raw = root / "raw [1] {a,b} *?%20#+ü"
    for name, data in {**NASTY, **random_files(2, 60), **UTF8_EDGES}.items():
        write(raw, name, data)
    for name, (data, _) in GZIP.items():
        write(raw, name, data)
    truncated = J + b"\n" + b"\xff\n" + os.urandom(20000).hex().encode() + b"\n"
    write(raw, "gz/truncated.jsonl.gz", gzip.compress(truncated)[:-200])
    write(raw, "gz/truncated_valid.jsonl.gz", gzip.compress(J + b"\n" + os.urandom(20000).hex().encode())[:-9])
    write(raw, "gz/corrupt.jsonl.gz", gzip.compress(J + b"\n") + b"\x1f\x8b\x08\x00garbage" * 10)
    write(raw, "gz/not_gzip.jsonl.gz", J + b"\n")
    write(raw, "gz/bom crlf.jsonl.gz", gzip.compress(b"\xef\xbb\xbf" + J + b"\r\n\r\n" + J))
    appended = raw / "gz" / "appended [x].jsonl.gz"
    for number in range(3):  # each `ab` opening adds a gzip member
        with gzip.open(appended, "ab") as handle:
            handle.write(b"".join(J[:-1] + b', "n": %d}\n' % (number * 1000 + line) for line in range(1000)))
    large = [J[:-1] + b', "n": %d}' % number for number in range(3000)]
    large[6], large[1499] = large[6] + b"\xff", b"\xef\xbb\xbf\xc3(" + large[1499]
    write(raw, "large.jsonl", b"\r\n".join(large) + b"\n\xfe")  # invalid lines at 7, 1500 and 3001
    for name in ("pct%41.jsonl", "hash#frag.jsonl", "plus+sign.jsonl", "colon:name.jsonl", "k=v/part.jsonl"):
        write(raw, name, J + b"\r\n" + J + b"\n")
    write(raw, "_rejects.jsonl", J + b"\n")  # not logs: names starting with _ or .
    write(raw, ".hidden/x.jsonl", J + b"\n")
    os.symlink(raw / "valid.jsonl", raw / "link to valid.jsonl")
    os.symlink("/nonexistent/target.jsonl", raw / "dangling.jsonl")
    os.mkfifo(raw / "pipe.jsonl")
    return raw


def trace_folder(root: Path) -> Path:
    return kineto_traces.reader_folder(root / "raw")


FOLDERS = {
    "faulty": lambda root: FAULTY,
    "sample": lambda root: SAMPLE,
    "traces": trace_folder,
    "awkward": awkward_folder,
    "awkward_on_the_driver": awkward_folder,  # every file over 1 KB read on the driver, in pieces and batches
}


def tables_of(rows_by_table: dict[str, list[tuple]]) -> tuple[dict[str, list[tuple]], dict[str, set]]:
    """(rows of each table in order, without the time of the reading; the times of the reading)"""
    tables, read_at = {}, {}
    for table, rows in rows_by_table.items():
        names = [name for name, _ in TABLES[table]]
        if table in READ_AT:
            at = names.index(READ_AT[table])
            read_at[table] = {row[at] for row in rows}
            rows = [row[:at] + row[at + 1 :] for row in rows]
        tables[table] = sorted(rows, key=lambda row: row[: KEYS.get(table, len(row))])
    return tables, read_at


def duckdb_tables(raw: Path):
    connection = duckdb.connect()
    summary = duckdb_reader.refresh(connection, str(raw), "raw")
    rows = {table: connection.execute(f"select * from raw.{table}").fetchall() for table in TABLES}
    connection.close()
    return summary, *tables_of(rows)


def spark_tables(spark, raw: Path, database: str):
    from runlens.raw_logs import spark_reader

    summary = spark_reader.refresh(spark, str(raw), database)
    rows = {}
    for table, columns in TABLES.items():
        frame = spark.table(f"{database}.{table}")
        assert frame.dtypes == [(name, SPARK_TYPES[kind]) for name, kind in columns], table
        # the session's time zone is UTC: a timestamp's wall time there is its naive UTC time
        rows[table] = [
            tuple(row)
            for row in frame.selectExpr(
                *(
                    f"cast(`{name}` as timestamp_ntz) as `{name}`" if kind == "timestamp" else f"`{name}`"
                    for name, kind in columns
                )
            ).collect()
        ]
    return summary, *tables_of(rows)


@pytest.fixture(scope="module", params=list(FOLDERS))
def both(request, spark, tmp_path_factory):
    """The folder, and (summary, tables, times of the reading) of each reader over it."""
    from runlens.raw_logs import spark_reader, trace_batches

    raw = FOLDERS[request.param](tmp_path_factory.mktemp(request.param))
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "awkward_on_the_driver":
            patch.setattr(spark_reader, "LARGEST_SPARK_BYTES", 1024)
            patch.setattr(spark_reader, "PYTHON_BATCH_BYTES", 64 * 1024)
            patch.setenv("RUNLENS_CHUNK_BYTES", "1024")  # DuckDB's reader too cuts every text of more than 1 KB
        if request.param == "traces":  # both readers load a trace's events two at a time; Spark a few files at once
            patch.setattr(trace_batches, "BATCH_EVENTS", 2)
            patch.setattr(spark_reader, "SPARK_BATCH_EVENTS", 7)
        return raw, duckdb_tables(raw), spark_tables(spark, raw, f"raw_{request.param}")


@pytest.mark.parametrize("table", list(TABLES))
def test_spark_writes_the_rows_duckdb_writes(both, table):
    _, (_, expected, _), (_, got, _) = both
    assert len(got[table]) == len(expected[table])
    differing = [(one, other) for one, other in zip(got[table], expected[table], strict=True) if one != other]
    assert not differing, f"{len(differing)} rows differ (spark, duckdb), the first: {differing[:5]}"


def test_each_reader_stamps_one_time_of_reading(both):
    raw, (duckdb_summary, _, duckdb_at), (spark_summary, spark_tables_, spark_at) = both
    for read_at in (duckdb_at, spark_at):
        assert len(read_at["build_context"]) == 1 and read_at["log_files"] <= read_at["build_context"]
        assert read_at["trace_files"] <= read_at["build_context"]
    assert spark_tables_["build_context"][0][0] == os.path.abspath(raw)
    assert spark_summary == duckdb_summary


def test_awkward_files_are_there(tmp_path_factory):
    """The awkward folder holds what it is meant to: each kind of fault, as the DuckDB reader saw it."""
    raw = awkward_folder(tmp_path_factory.mktemp("awkward_check"))
    _, tables, _ = duckdb_tables(raw)
    errors = {row[0]: row[6] for row in tables["log_files"]}
    assert errors["gz/truncated.jsonl.gz"] == errors["gz/truncated_valid.jsonl.gz"] == "truncated_gzip"
    assert errors["gz/corrupt.jsonl.gz"].startswith("corrupt_gzip") and errors["gz/not_gzip.jsonl.gz"]
    assert errors["pipe.jsonl"] == "unreadable: not a regular file"
    assert errors["dangling.jsonl"] == "unreadable: cannot stat"
    lines = {(row[0], row[2]): row[3:] for row in tables["log_lines"]}
    assert lines["gz/appended [x].jsonl.gz", 3000][0].endswith('"n": 2999}')
    assert [number for (path, number), line in lines.items() if path == "large.jsonl" and line[1]] == [7, 1500, 3001]
    assert "_rejects.jsonl" not in errors and ".hidden/x.jsonl" not in errors


def test_the_trace_folder_holds_each_kind(tmp_path_factory):
    """The trace folder (kineto_traces.reader_folder) holds what it is meant to, as the DuckDB
    reader saw it: the plan's complete events (current schema: 3 steps, 2 DataLoader spans,
    aten::mm, 9 launches, 9 GPU events and 3 GPU step annotations = 27; the 2021 schema has no GPU
    annotations: 24), a trace cut short with its reason, and awkward_events' events and the NUL
    name's."""
    _, tables, _ = duckdb_tables(trace_folder(tmp_path_factory.mktemp("traces_check")))
    counts = {row[0]: (row[15], row[18]) for row in tables["trace_files"]}
    assert {path: count for path, (count, _) in counts.items() if path != "broken/cut.pt.trace.json"} == {
        "gpu/current.pt.trace.json": 27,
        "gpu/legacy.json.gz": 24,
        "job/rank-0.pt.trace.json": 27,
        "job/rank-1.pt.trace.json": 27,
        "odd/odd.pt.trace.json": len(kineto_traces.AWKWARD_NAMES) + 4,
    }
    assert counts["broken/cut.pt.trace.json"][1].startswith("truncated")
    assert len(tables["trace_events"]) == sum(count for count, _ in counts.values())


def test_a_second_reading_replaces_every_table(spark, tmp_path, monkeypatch):
    """Spark reads the whole folder again each time: a removed file leaves, a changed one is read
    again (counted as changed or removed), the collections are the file's now; a relative raw
    folder is written as its absolute path."""
    from runlens.raw_logs import spark_reader

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNLENS_COLLECTIONS", raising=False)
    raw = Path("raw")
    for name in ("kept.jsonl", "changed.jsonl", "removed.jsonl"):
        write(raw, name, J + b"\n")
    write(raw, "runlens_collections.csv", b"collection,title\nc,C\n")
    spark_reader.refresh(spark, str(raw), "raw_again")
    (raw / "removed.jsonl").unlink()
    with open(raw / "changed.jsonl", "ab") as handle:
        handle.write(b"\xff\n" + J + b"\n")
    (raw / "runlens_collections.csv").unlink()
    write(raw, "new.jsonl", J + b"\n")
    summary, tables, _ = spark_tables(spark, raw, "raw_again")
    assert tables == duckdb_tables(raw)[1]
    assert summary == ReadSummary(files=3, read_files=3, read_lines=5, forgotten_files=2)
    assert tables["build_context"][0][0] == str(tmp_path / "raw") and not tables["collections"]


def test_each_line_row_carries_its_piece_only_in_small_generated_code(spark, tmp_path, capsys):
    """The explode's rows carry their own piece, never the file's text or array of pieces (which
    made the old reading quadratic), and every stage's generated code is small: far below the 64 KB
    past which Spark gives up whole-stage code generation, below the JIT's 8000-byte method limit."""
    from runlens.raw_logs import spark_reader

    write(tmp_path, "a.jsonl", J + b"\n\xff\n")
    texts, _ = spark_reader.spark_texts(spark, list_log_files(str(tmp_path)))
    lines = spark_reader.lines_of(texts, [("a.jsonl", 2, "\\xFF")])
    lines.collect()  # the final plan
    lines.explain("formatted")
    lines.explain("codegen")
    explained = capsys.readouterr().out
    generate = re.search(
        r"\(\d+\) Generate \[codegen id : \d+\]\n.*\nArguments: posexplode\(\w+#\d+\), \[(.*?)\]", explained
    )
    assert generate is not None, explained
    assert [column.split("#")[0] for column in generate.group(1).split(", ")] == [
        "file_path",
        "file_fingerprint",
        "piece_count",
    ]
    method_sizes = [int(size) for size in re.findall(r"maxMethodCodeSize:(\d+)", explained)]
    assert method_sizes and max(method_sizes) < 8000, explained


def test_only_local_folders(spark):
    from runlens.raw_logs import spark_reader

    with pytest.raises(RawFolderError, match="local folders only"):
        spark_reader.refresh(spark, "s3a://bucket/logs", "raw_remote")
    assert spark_reader.local_folder("file:///tmp/a%20b") == "/tmp/a b"
