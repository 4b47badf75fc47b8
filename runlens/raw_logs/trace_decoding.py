"""Traces decoded by DuckDB's JSON functions, the fast way to the rows of trace_events: a batch of
trace texts read whole by read_text, each `traceEvents` taken apart by from_json in one pass, the
texts of a batch in parallel (several times the pace of the streaming reader, which decodes one
event at a time in Python).

The rows are those the streaming reader gives (trace_reading.py: which events are kept, their
columns, the header), rule for rule:
- an event is kept when it is an object whose `ph` is the text `X`, whose `cat` is a text other
  than `Trace` and whose `ts` and `dur` are numbers; numbered from 1 among all of traceEvents;
- `name`, `pid`, `tid` as text (an integer as its digits, true/false as those words, no value as
  NULL; `name` never NULL but empty); `stream`, `device`, `correlation` and `External id`
  (else `external id`) of `args` as integers (trace_reading.as_integer);
- of a key written twice in one object, the first counts (the streaming reader decodes the same).

Where DuckDB's reading could differ from those rules, or cannot go, a trace is declined and the
streaming reader reads it as before (duckdb_traces.py): a text larger than LARGEST_TEXT_BYTES once
decompressed (the text is held whole here), a gzip that is cut or corrupt, text that is not UTF-8
or not valid JSON to DuckDB, a top-level key written twice or no array `traceEvents`, text that
DuckDB's JSON accepts and Python's does not or reads otherwise (a comma before a closing bracket;
`nan` or `inf` in any spelling; a UTF-16 surrogate escape: such words are looked for anywhere, a
name holding one only costs the slow way), and a kept event whose name, pid or tid is a fraction, a
list or an object (texts Python writes its own way). tests/pipeline/test_trace_decoding.py reads
hostile traces both ways and compares every row.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib

import duckdb

from runlens.raw_logs.duckdb_rows import insert_rows
from runlens.raw_logs.listing import LogFile
from runlens.raw_logs.trace_reading import TraceHeader, first_wins

LARGEST_TEXT_BYTES = 512 << 20  # a trace's text larger than this is read as a stream
BATCH_TEXT_BYTES = 256 << 20  # the texts decoded together, at most (unless one alone is larger)
HEADER_KEYS = ("schemaVersion", "baseTimeNanoseconds", "distributedInfo", "deviceProperties")
# text DuckDB's JSON reads and Python's rejects, looked for anywhere in the trace
PYTHON_REJECTS = r"(?i)\b(nan|inf|infinity)\b|,[ \t\r\n]*[\]}]|\\u[dD][89a-fA-F]"
EVENT_FIELDS = (
    '[{"ph": "VARCHAR", "cat": "JSON", "name": "JSON", "ts": "JSON", "dur": "JSON", '
    '"pid": "JSON", "tid": "JSON", "args": "JSON"}]'
)
ARG_PATHS = "['$.stream', '$.device', '$.correlation', '$.\"External id\"', '$.\"external id\"']"
NUMBER_START = "('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9')"
BLANKS = "' ' || chr(9) || chr(13) || chr(10)"


def as_text_sql(value: str) -> str:
    """trace_reading.as_text of a JSON value as from_json writes it (a number re-written, a big
    integer's digits kept); NULL for a fraction, a list or an object, which decline the trace."""
    return f"""case left({value}, 1)
        when '"' then json_extract_string({value}, '$')
        when 't' then 'true'
        when 'f' then 'false'
        else case when regexp_full_match({value}, '-?[0-9]+') then cast({value} as varchar) end
    end"""


def python_writes_otherwise_sql(value: str) -> str:
    """Whether a name, pid or tid is a list, an object or a fraction (a number not all digits)."""
    start = f"left({value}, 1)"
    fraction = f"{start} in {NUMBER_START} and not regexp_full_match({value}, '-?[0-9]+')"
    return f"coalesce({start} in ('[', '{{') or ({fraction}), false)"


def as_integer_sql(value: str) -> str:
    """trace_reading.as_integer of a JSON value: an integer a bigint holds, a float that is one, the text of one."""
    text = f"json_extract_string({value}, '$')"
    number = f"try_cast(cast({value} as varchar) as double)"
    return f"""case
        when left({value}, 1) = '"' then case
            when regexp_full_match({text}, '[ \\t\\r\\n]*-?[0-9]{{1,19}}[ \\t\\r\\n]*')
            then try_cast(trim({text}, {BLANKS}) as bigint)
        end
        when left({value}, 1) not in {NUMBER_START} then null
        when regexp_full_match({value}, '-?[0-9]+') then try_cast(cast({value} as varchar) as bigint)
        when isfinite({number}) and {number} = floor({number}) then try_cast({number} as bigint)
    end"""


HEADER_PATHS = "[" + ", ".join(f"'$.\"{key}\"'" for key in HEADER_KEYS) + "]"
# per text: its top-level keys (a key written twice), the kind of traceEvents, the header's values
DOCUMENT_CHECKS = f"""
select filename, json_keys(content), json_type(content, '$.traceEvents'), json_extract(content, {HEADER_PATHS}),
    regexp_matches(content, '{PYTHON_REJECTS}')
from read_text(?)
"""

# every element of traceEvents as a row of its fields: materialised before the rules below, which
# take twice as long when they read the fields through the list
TRACE_ELEMENTS = f"""
create or replace temp table trace_elements as
select filename, event_number, event.*
from (
    -- an element by its index: unnest takes several times longer over one list this long
    select documents.filename, numbers.event_number, documents.events[numbers.event_number] as event
    from (
        select filename, from_json(json_extract(content, '$.traceEvents'), '{EVENT_FIELDS}') as events
        from read_text(?)
    ) as documents, range(1, len(documents.events) + 1) as numbers (event_number)
)
"""

DECODED_EVENTS = f"""
create or replace temp table decoded_trace_events as
with
kept as (
    select filename, event_number, cat, name, ts, dur, pid, tid, json_extract(args, {ARG_PATHS}) as arguments
    from trace_elements
    where ph = 'X'
        and left(cat, 1) = '"' and json_extract_string(cat, '$') != 'Trace'
        and left(ts, 1) in {NUMBER_START} and left(dur, 1) in {NUMBER_START}
)
select
    filename,
    event_number,
    json_extract_string(cat, '$') as cat,
    coalesce({as_text_sql("name")}, '') as name,
    cast(cast(ts as varchar) as double) as ts,
    cast(cast(dur as varchar) as double) as dur,
    {as_text_sql("pid")} as pid,
    {as_text_sql("tid")} as tid,
    {as_integer_sql("arguments[1]")} as stream,
    {as_integer_sql("arguments[2]")} as device,
    {as_integer_sql("arguments[3]")} as correlation,
    case when arguments[4] is not null then {as_integer_sql("arguments[4]")} else {as_integer_sql("arguments[5]")} end
        as external_id,
    {python_writes_otherwise_sql("name")}
        or {python_writes_otherwise_sql("pid")}
        or {python_writes_otherwise_sql("tid")} as python_writes_otherwise
from kept
"""


def text_file(log_file: LogFile, folder: str, index: int) -> str:
    """The path of the trace's text: the file itself, or for a gzip'd trace its text decompressed
    into folder; ValueError with the reason to decline."""
    if log_file.unread_reason is not None:
        raise ValueError(log_file.unread_reason)
    if not log_file.is_gzip:
        if os.path.getsize(log_file.absolute_path) > LARGEST_TEXT_BYTES:
            raise ValueError("larger than the fast reading holds")
        return log_file.absolute_path
    path = os.path.join(folder, f"trace-text-{index:06d}.json")
    try:
        with gzip.open(log_file.absolute_path, "rb") as source, open(path, "wb") as target:
            while chunk := source.read(1 << 20):
                target.write(chunk)
                if target.tell() > LARGEST_TEXT_BYTES:
                    raise ValueError("larger than the fast reading holds")
    except (EOFError, OSError, zlib.error) as error:
        raise ValueError(f"gzip: {error}") from None
    return path


def batches(traces: list[LogFile]) -> list[list[LogFile]]:
    """The traces in batches of at most BATCH_TEXT_BYTES of files (a larger file a batch of its own)."""
    found, current, size = [], [], 0
    for trace in traces:
        bytes_ = os.path.getsize(trace.absolute_path) if trace.unread_reason is None else 0
        if current and size + bytes_ > BATCH_TEXT_BYTES:
            found.append(current)
            current, size = [], 0
        current.append(trace)
        size += bytes_
    if current:
        found.append(current)
    return found


def checked(connection: duckdb.DuckDBPyConnection, paths: list[str]) -> tuple[dict[str, list], dict[str, str]]:
    """({path: the header's values as JSON texts} of the texts at paths that may be decoded,
    {path: why} of those to decline)."""
    headers, declined = {}, {}
    for filename, keys, events_kind, header, python_rejects in connection.execute(DOCUMENT_CHECKS, [paths]).fetchall():
        if len(set(keys)) != len(keys):
            declined[filename] = "a top-level key written twice"
        elif "traceEvents" not in keys or events_kind != "ARRAY":
            declined[filename] = "no array traceEvents"
        elif python_rejects:
            declined[filename] = "text Python's JSON reads otherwise"
        else:
            headers[filename] = header
    return headers, declined


def forget(connection: duckdb.DuckDBPyConnection, table: str, filenames: list[str]) -> None:
    for filename in filenames:
        connection.execute(f"delete from {table} where filename = ?", [filename])


def headers_of(connection: duckdb.DuckDBPyConnection, values: dict[str, list]) -> dict[str, TraceHeader]:
    """Each decoded text's header: the top-level values file_row reads, and its kept events' count,
    categories and span."""
    headers = {}
    for filename, found in values.items():
        header = headers[filename] = TraceHeader()
        for key, value in zip(HEADER_KEYS, found, strict=True):
            if value is not None:
                header.keys[key] = json.loads(value, object_pairs_hook=first_wins)
    figures = connection.execute(
        "select filename, count(*), list(distinct cat), min(ts), max(ts + dur) from decoded_trace_events group by all"
    ).fetchall()
    for filename, count, categories, first_ts, last_end_ts in figures:
        header = headers[filename]
        header.event_count, header.categories = count, set(categories)
        header.first_ts, header.last_end_ts = first_ts, last_end_ts
    return headers


def decode_batch(
    connection: duckdb.DuckDBPyConnection, traces: list[LogFile], folder: str
) -> tuple[dict[str, TraceHeader], dict[str, str]]:
    """The batch's traces decoded: their kept events in the temp table decoded_trace_events
    (file_path, file_fingerprint, then trace_events' columns from event_number on); returns
    ({file_path: header} of the decoded, {file_path: why} of the declined). duckdb.Error when
    DuckDB cannot read the batch's texts together (the caller decodes them one by one)."""
    declined, texts = {}, {}
    for index, trace in enumerate(traces):
        try:
            texts[text_file(trace, folder, index)] = trace
        except ValueError as error:
            declined[trace.file_path] = str(error)
    try:
        decoded = decode_texts(connection, list(texts)) if texts else {}
    finally:
        for path, trace in texts.items():
            if path != trace.absolute_path:
                os.remove(path)
    headers = {}
    for path, outcome in decoded.items():
        if isinstance(outcome, TraceHeader):
            headers[texts[path].file_path] = outcome
        else:
            declined[texts[path].file_path] = outcome
    names = [
        (path, trace.file_path, trace.file_fingerprint) for path, trace in texts.items() if trace.file_path in headers
    ]
    connection.execute(
        "create or replace temp table decoded_trace_files (filename varchar, file_path varchar, fingerprint varchar)"
    )
    if names:
        insert_rows(
            connection,
            "decoded_trace_files",
            [("filename", "varchar"), ("file_path", "varchar"), ("fingerprint", "varchar")],
            names,
        )
    return headers, declined


def decode_texts(connection: duckdb.DuckDBPyConnection, paths: list[str]) -> dict[str, TraceHeader | str]:
    """{path: header of the decoded text, or why it was declined} of the texts at paths, the
    decoded texts' kept events in decoded_trace_events. Each query reads the files anew (the
    system's cache holds them): a scan of read_text decodes the files on several threads, a scan of
    a table holding their texts on one."""
    values, declined = checked(connection, paths)
    if not values:
        return declined
    connection.execute(TRACE_ELEMENTS, [list(values)])
    connection.execute(DECODED_EVENTS)
    connection.execute("drop table trace_elements")
    otherwise = connection.execute(
        "select filename from decoded_trace_events group by filename having bool_or(python_writes_otherwise)"
    ).fetchall()
    for (filename,) in otherwise:
        declined[filename] = "a name, pid or tid Python writes its own way"
        del values[filename]
    forget(connection, "decoded_trace_events", [filename for (filename,) in otherwise])
    return {**headers_of(connection, values), **declined}


DECODED_ROWS = """
select files.file_path, files.fingerprint, events.* exclude (filename, python_writes_otherwise)
from decoded_trace_events as events
inner join decoded_trace_files as files on events.filename = files.filename
order by files.file_path, events.event_number
"""


class Decoder:
    """Decodes traces in a DuckDB of its own (in memory), so that a fault (a text that is not
    UTF-8, bad JSON) never aborts the reading's transaction; the rows of trace_events it decodes
    go to Parquet files in folder, which the reader inserts."""

    def __init__(self, folder: str):
        self.folder = folder
        self.connection = duckdb.connect()
        self.written = 0

    def decode(self, traces: list[LogFile]) -> tuple[dict[str, TraceHeader], dict[str, str], list[str]]:
        """({file_path: header} of the traces decoded, {file_path: why} of those declined, the
        Parquet files that hold the decoded traces' rows of trace_events). A batch DuckDB cannot
        read together is decoded one trace at a time."""
        try:
            headers, declined = decode_batch(self.connection, traces, self.folder)
            files = [self.write()] if headers else []
        except duckdb.Error as error:
            if len(traces) == 1:
                return {}, {traces[0].file_path: f"DuckDB: {error}"}, []
            headers, declined, files = {}, {}, []
            for trace in traces:
                found = self.decode([trace])
                headers.update(found[0])
                declined.update(found[1])
                files += found[2]
        finally:
            drop(self.connection)
        return headers, declined, files

    def write(self) -> str:
        self.written += 1
        path = os.path.join(self.folder, f"decoded-{self.written:06d}.parquet")
        self.connection.execute(f"copy ({DECODED_ROWS}) to '{path}' (format parquet)")
        return path

    def close(self) -> None:
        self.connection.close()


def drop(connection: duckdb.DuckDBPyConnection) -> None:
    for table in ("trace_elements", "decoded_trace_events", "decoded_trace_files"):
        connection.execute(f"drop table if exists {table}")
