"""The Spark reader: writes the raw tables (raw_tables.py) as parquet tables `<database>.<table>`,
each replaced whole on every reading (Spark builds everything every time: no incremental reading).

The driver lists the folder (listing.py). Spark's own file reader reads the files on the executors
(`text` with wholetext: one value per file, gzip decompressed by Hadoop's codec, every member): a
first pass learns which files it read and which are not valid UTF-8 (`is_valid_utf8`), a second
splits them into lines by the line rules (lines_of: the rules in Spark's functions). The
driver reads (reading.py) only what Spark cannot give as it is: the escaped text of each invalid
line of a file Spark read (a few lines, joined in by line number), and the whole text of a file
Spark did not read, which Spark then splits the same way: a gzip file Hadoop cannot decompress
(truncated or corrupt: skipped through ignoreCorruptFiles; reading.py keeps what it decoded and says
why), a file gone since the listing, empty, not readable by this user, with a `:` in its name
(Hadoop's checksum file name cannot hold one) or larger than LARGEST_SPARK_BYTES (memory).

The profiler traces (trace_listing.py) are read on the driver as a stream into CSV files of a
batch of events each (trace_batches.py, the files the other readers load), which Spark reads and
appends to trace_events when they hold SPARK_BATCH_EVENTS events: no trace is held in memory,
and a folder of many small traces costs few Spark jobs.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit
from urllib.request import url2pathname

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.utils import AnalysisException

from runlens.raw_logs.as_of import pinned_as_of
from runlens.raw_logs.folder_metadata import read_collections
from runlens.raw_logs.handover import chunk_bytes, chunks
from runlens.raw_logs.listing import WHAT_TO_DO, LogFile, RawFolderError, list_log_files
from runlens.raw_logs.raw_tables import (
    BLANKS,
    BOM,
    TABLES,
    ReadSummary,
    loaded_at_now,
    log_file_row,
    plan_reading,
    trace_file_row,
)
from runlens.raw_logs.reading import read_log_bytes
from runlens.raw_logs.trace_batches import EventBatches
from runlens.raw_logs.trace_listing import list_trace_files
from runlens.raw_logs.trace_reading import TraceHeader, file_row

LARGEST_SPARK_BYTES = 64 * 1024 * 1024  # a larger file is read on the driver, a chunk at a time (memory)
PYTHON_BATCH_BYTES = 256 * 1024 * 1024  # text read on the driver handed to Spark in one write
SPARK_TYPES = {
    "varchar": "string",
    "bigint": "bigint",
    "timestamp": "timestamp",
    "boolean": "boolean",
    "double": "double",
}
GLOB_CHARACTERS = re.compile(r"([\\*?\[\]{}])")  # what Hadoop reads as a pattern in a path: escaped
LISTING_THRESHOLD = "spark.sql.sources.parallelPartitionDiscovery.threshold"
TEXTS = "file_path string, file_fingerprint string, first_line_number bigint, text string"
SPARK_BATCH_EVENTS = 1_000_000  # trace events on disk (CSV files) that Spark appends in one write
# trace_batches.py's CSV: RFC 4180, line breaks inside quotes (each kept as it is: rows end in LF),
# NULL an unquoted empty field and `""` the empty text, Python's names for the doubles that are no
# numbers. Spark turns any field equal to nullValue into NULL; with the default (empty) `""` would
# be NULL too, so nullValue is a marker that stands in for an unquoted empty field only (a trace's
# text equal to it, NULs and all, would read as NULL)
EVENT_CSV = {
    "header": False,
    "lineSep": "\n",
    "nullValue": "\x00runlens:null\x00",
    "quote": '"',
    "escape": '"',
    "multiLine": True,
    "mode": "FAILFAST",
    "encoding": "UTF-8",
    "nanValue": "nan",
    "positiveInf": "inf",
    "negativeInf": "-inf",
}


def schema(table: str) -> str:
    return ", ".join(f"`{name}` {SPARK_TYPES[kind]}" for name, kind in TABLES[table])


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table]]


def local_folder(raw_dir: str) -> str:
    """raw_dir as a local path (a `file:` URI too); RawFolderError for any other URI."""
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", raw_dir)
    if scheme is None or os.path.exists(raw_dir) or len(scheme.group(1)) == 1:  # `C:` is a drive
        return raw_dir
    parts = urlsplit(raw_dir)
    if parts.scheme.lower() == "file" and parts.netloc in ("", "localhost"):
        return url2pathname(parts.path)
    raise RawFolderError(
        f"raw log folder {raw_dir} is not a local folder: the Spark reader reads local folders only; "
        f"copy the logs to one and set {WHAT_TO_DO}"
    )


def utc(moment: datetime | None) -> datetime | None:
    """A naive UTC time as an aware one: Spark then stores that instant, whatever the local zone."""
    return None if moment is None else moment.replace(tzinfo=UTC)


def read_by_spark(log_file: LogFile) -> bool:
    """Whether Spark is given the file (it may still fail to read it: then the driver reads it)."""
    return (
        log_file.unread_reason is None
        and 0 < (log_file.size_bytes or 0) <= LARGEST_SPARK_BYTES
        and ":" not in os.path.basename(log_file.absolute_path)
        and os.access(log_file.absolute_path, os.R_OK)
    )


def lines_of(texts: DataFrame, escaped: list[tuple[str, int, str]]) -> DataFrame:
    """The lines of texts (TEXTS: a file's text, or a piece of it that ends after a line break and
    starts at first_line_number) by the line rules (models/staging/input_contract.md, "What a line
    is"; tests/engines/test_line_rules_on_every_reader.py holds this spelling of them to it, as it
    holds DuckDB's and Python's); escaped: (file_path, line_number, text) of each
    line that is not valid UTF-8, its text as reading.py escapes it. The pieces are counted below the
    explode, not beside it: an output row then carries its piece, not the file's array of them."""
    spark = texts.sparkSession
    text = F.col("text")
    split = texts.where(text != "").select(
        "file_path", "file_fingerprint", "first_line_number", F.split(text, "\n", -1).alias("pieces")
    )
    counted = split.select("*", F.size("pieces").alias("piece_count"))  # below the explode: not carried
    # outer: no filter on the array is inferred below the explode (it would split every text twice);
    # a text that is not empty always splits into at least one piece, so no row is added
    lines = counted.select(
        "file_path",
        "file_fingerprint",
        "first_line_number",
        "piece_count",
        F.posexplode_outer("pieces").alias("position", "piece"),
    )
    lines = lines.where((F.col("position") < F.col("piece_count") - 1) | (F.col("piece") != "")).select(
        "file_path",
        "file_fingerprint",
        (F.col("first_line_number") + F.col("position")).cast("bigint").alias("line_number"),
        "piece",
    )
    if escaped:
        invalid = spark.createDataFrame(escaped, "file_path string, line_number bigint, escaped string")
        lines = lines.join(F.broadcast(invalid), ["file_path", "line_number"], "left")
    else:
        lines = lines.withColumn("escaped", F.lit(None).cast("string"))
    # a piece is valid UTF-8 (split decodes the text; an invalid line's piece is not used), so the
    # character functions are exact on it: no regular expression (Java's `$` matches before a final
    # line break) and no conversion to a Java string per line
    piece = F.col("piece")
    boms_trimmed = F.expr(f"trim(leading '{BOM}' from piece)")  # F.ltrim(piece, BOM) is a deprecated form
    bom_free = lines.withColumn("piece", F.when(F.col("line_number") == 1, boms_trimmed).otherwise(piece))
    cr_free = F.when(piece.endswith("\r"), piece.substr(F.lit(1), F.char_length(piece) - 1)).otherwise(piece)
    cleaned = bom_free.withColumn("line_text", cr_free)
    invalid_line = F.col("escaped").isNotNull()
    return cleaned.select(
        "file_path",
        "file_fingerprint",
        "line_number",
        F.coalesce("escaped", "line_text").alias("text"),
        invalid_line.alias("is_invalid_utf8"),
        (~invalid_line & (F.btrim("line_text", F.lit(BLANKS)) == "")).alias("is_blank"),
    )


def spark_texts(spark: SparkSession, files: list[LogFile]) -> tuple[DataFrame, dict[str, bool]]:
    """The texts (TEXTS) of the files Spark reads, and whether each one it read is valid UTF-8: a
    first, light pass over the files, so that the texts are of exactly the files it read then."""
    empty = spark.createDataFrame([], TEXTS)
    if not files:
        return empty, {}
    reader = spark.read.option("ignoreCorruptFiles", True).option("ignoreMissingFiles", True)
    paths = [GLOB_CHARACTERS.sub(r"\\\1", log_file.absolute_path) for log_file in files]
    listing_threshold = spark.conf.get(LISTING_THRESHOLD)
    # the paths are files, each looked up on its own: here, not in a Spark job of a task per path
    spark.conf.set(LISTING_THRESHOLD, str(len(paths) + 1))
    try:
        read = reader.text(paths, wholetext=True)
    except AnalysisException:  # a file gone since the listing: every file is read on the driver
        return empty, {}
    finally:
        spark.conf.set(LISTING_THRESHOLD, listing_threshold)
    # _metadata.file_path is the URI of the path: `+` stays as it is, everything else %-escaped
    uri_path = F.regexp_replace(F.regexp_replace("_metadata.file_path", "^file:(//)?", ""), r"\+", "%2B")
    read = read.select(F.url_decode(uri_path).alias("absolute_path"), F.col("value").alias("text"))

    def of_files(listed: list[LogFile]) -> DataFrame:
        listing = spark.createDataFrame(
            [(log_file.absolute_path, log_file.file_path, log_file.file_fingerprint) for log_file in listed],
            "absolute_path string, file_path string, file_fingerprint string",
        )
        return read.join(F.broadcast(listing), "absolute_path").select(
            "file_path", "file_fingerprint", F.lit(1).cast("bigint").alias("first_line_number"), "text"
        )

    valid = dict(of_files(files).select("file_path", F.expr("is_valid_utf8(text)")).collect())
    return of_files([log_file for log_file in files if log_file.file_path in valid]), valid


def escaped_lines(log_file: LogFile, data: bytes | None, invalid: list[int]) -> list[tuple[str, int, str]]:
    """(file_path, line_number, text) of the invalid lines of data (read_log_bytes' bytes)."""
    lines = data.split(b"\n", max(invalid)) if invalid else []
    return [(log_file.file_path, number, lines[number - 1].decode("utf-8")) for number in invalid]


def driver_texts(files: list[LogFile], errors: dict[str, str], escaped: list) -> Iterator[list[tuple]]:
    """The texts (TEXTS rows) of files read here (reading.py), in batches of about
    PYTHON_BATCH_BYTES (at least one), each file's read error into errors and its invalid lines
    into escaped before its batch is given."""
    batch, held = [], 0
    for log_file in sorted(files, key=lambda log_file: log_file.file_path):
        data, invalid, error = read_log_bytes(log_file)
        if error is not None:
            errors[log_file.file_path] = error
        escaped += escaped_lines(log_file, data, invalid)
        for first_line, piece in chunks(data or b"", chunk_bytes()):
            batch.append((log_file.file_path, log_file.file_fingerprint, first_line, piece.decode("utf-8")))
            held += len(piece)
        if held > PYTHON_BATCH_BYTES:
            yield batch
            batch, held = [], 0
    yield batch


def write_lines(spark: SparkSession, table: str, listed: list[LogFile]) -> dict[str, str]:
    """Every file's lines into table (replaced); the read error of each file that has one."""
    native = [log_file for log_file in listed if read_by_spark(log_file)]
    texts, valid = spark_texts(spark, native)
    errors: dict[str, str] = {}
    escaped: list[tuple[str, int, str]] = []
    for log_file in native:  # read by Spark, not valid UTF-8: only its invalid lines are taken from here
        if valid.get(log_file.file_path) is False:
            data, invalid, error = read_log_bytes(log_file)
            if error is not None:
                errors[log_file.file_path] = error
            escaped += escaped_lines(log_file, data, invalid)
    unread = [log_file for log_file in listed if log_file.file_path not in valid]
    for number, batch in enumerate(driver_texts(unread, errors, escaped)):
        if number and not batch:
            continue
        batch_texts = spark.createDataFrame(batch, TEXTS)
        lines = lines_of(batch_texts.unionByName(texts) if number == 0 else batch_texts, escaped)
        lines.write.mode("append" if number else "overwrite").format("parquet").saveAsTable(table)
    return errors


def append_events(spark: SparkSession, table: str, paths: list[str]) -> None:
    """The events of the CSV files at paths (trace_batches.py) appended to table; the files removed."""
    if not paths:
        return
    escaped = [GLOB_CHARACTERS.sub(r"\\\1", path) for path in paths]
    frame = spark.read.schema(schema("trace_events")).options(**EVENT_CSV).csv(escaped)
    frame.write.mode("append").format("parquet").saveAsTable(table)
    for path in paths:
        os.remove(path)


def write_traces(spark: SparkSession, database: str, raw_dir: str, started_at: datetime) -> list[tuple]:
    """Every trace's events into trace_events (replaced); the trace_files rows."""
    table = f"{database}.trace_events"
    spark.createDataFrame([], schema("trace_events")).write.mode("overwrite").format("parquet").saveAsTable(table)
    records, pending, held = [], [], 0
    with tempfile.TemporaryDirectory(prefix="runlens-traces-") as folder:
        batches = EventBatches(folder)
        for trace in list_trace_files(raw_dir):
            header = TraceHeader()
            for path, events in batches.of(trace, header):
                pending.append(path)
                held += events
                if held >= SPARK_BATCH_EVENTS:
                    append_events(spark, table, pending)
                    pending, held = [], 0
            row = file_row(trace, header)
            row.update({name: utc(row[name]) for name in ("modified_at", "started_at", "ended_at")})
            records.append(trace_file_row(row, utc(started_at)))
        append_events(spark, table, pending)
    return records


def loaded_files(spark: SparkSession, database: str) -> dict[str, str]:
    if not spark.catalog.tableExists(f"{database}.log_files"):
        return {}
    return dict(spark.table(f"{database}.log_files").select("file_path", "file_fingerprint").collect())


def refresh(spark: SparkSession, raw_dir: str, database: str) -> ReadSummary:
    """Write the raw tables of raw_dir (a local folder) into database, each table replaced whole
    (every file read; forgotten_files: those changed or removed since the tables were written);
    raises RawFolderError, AsOfError or MetadataError (one line each) on a folder or metadata file
    that cannot be used, before any table is touched."""
    started_at = loaded_at_now()
    raw_dir = local_folder(raw_dir)
    listed = list_log_files(raw_dir)
    collections = read_collections(raw_dir)
    context = {"raw_dir": os.path.abspath(raw_dir), "build_started_at": utc(started_at)}
    context["pinned_as_of"] = utc(pinned_as_of(raw_dir))  # reading_error: none, the reading is done
    spark.sql(f"create database if not exists {database}")
    forgotten = len(plan_reading(listed, loaded_files(spark, database)).to_forget)

    errors = write_lines(spark, f"{database}.log_lines", listed)
    traces = write_traces(spark, database, raw_dir, started_at)
    records = [
        log_file_row(log_file._replace(modified_at=utc(log_file.modified_at)), errors, utc(started_at))
        for log_file in listed
    ]
    rows = {
        "log_files": records,
        "trace_files": traces,
        "collections": [[row.get(column) for column in columns("collections")] for row in collections],
        "build_context": [[context.get(column) for column in columns("build_context")]],
    }
    # the other tables from these rows; any other one (last_build) empty, as every reading leaves it
    for name in [name for name in TABLES if name not in ("log_lines", "trace_events")]:
        frame = spark.createDataFrame(rows.get(name, []), schema(name))
        frame.write.mode("overwrite").format("parquet").saveAsTable(f"{database}.{name}")
    read_lines = spark.table(f"{database}.log_lines").count()
    return ReadSummary(len(listed), len(listed), read_lines, forgotten)
