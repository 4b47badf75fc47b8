"""Every physical line of every raw log file, loaded incrementally by file identity.

Grain: one row per file and line number, plus one file record per file (line_number 0) that
carries the file's fingerprint and `read_error`, so a file is read once per fingerprint even
when it holds no line. On an incremental run, the pre-hook (see _staging__models.yml) has already
deleted the rows of files that are gone or whose fingerprint changed; this model reads only the
files that have no rows left: new files and changed ones, each reloaded whole.

Reading is the only work done in Python: each file's bytes are read whole (never through a glob, so
names with `*`, `?` or `[` are safe), gzip files decompressed (bytes decoded before a fault are
kept), and handed to DuckDB in batches. Splitting and decoding are SQL:
a file whose bytes are valid UTF-8 is split as text; any other file is split on its escaped byte
form (`\\xNN` for every non-printable byte, so `\\x0A` is always a newline) and each line decoded
on its own, so one bad byte spoils one line, never a file. Lines are split on `\\n`; a trailing
`\\r` and, on line 1, a UTF-8 byte order mark are removed; the empty piece after a final newline is
not a line.
"""

import zlib

BATCH_BYTES = 256 * 1024 * 1024  # file bytes held in memory at once while splitting
CONTENT_COLUMNS = "file_path varchar, file_fingerprint varchar, content blob, read_error varchar"
LINE_COLUMNS = (
    "file_path varchar, file_fingerprint varchar, line_number bigint, line_text varchar, "
    "raw_text varchar, is_invalid_utf8 boolean, is_blank boolean, read_error varchar"
)
SPLIT_SQL = r"""
with

raw_files as (
    select file_path, file_fingerprint, content, try(decode(content)) as content_text
    from raw_batch_content
    where content is not null
),

text_pieces as (
    select file_path, file_fingerprint, string_split(content_text, chr(10)) as pieces
    from raw_files
    where content_text is not null
),

text_lines as (
    select
        file_path,
        file_fingerprint,
        generate_subscripts(pieces, 1) as line_number,
        len(pieces) as piece_count,
        unnest(pieces) as line_text,
        null::varchar as escaped_line
    from text_pieces
),

byte_pieces as (
    select file_path, file_fingerprint, string_split(content::varchar, '\x0A') as pieces
    from raw_files
    where content_text is null
),

byte_lines as (
    select
        file_path,
        file_fingerprint,
        generate_subscripts(pieces, 1) as line_number,
        len(pieces) as piece_count,
        null::varchar as line_text,
        unnest(pieces) as escaped_line
    from byte_pieces
),

decoded_byte_lines as (
    select
        file_path,
        file_fingerprint,
        line_number,
        piece_count,
        try(decode(escaped_line::blob)) as line_text,
        regexp_replace(escaped_line, '\\x0D$', '') as escaped_line
    from byte_lines
),

all_lines as (
    select * from text_lines
    union all
    select * from decoded_byte_lines
),

physical_lines as (
    select * from all_lines
    where not (line_number = piece_count and coalesce(line_text, escaped_line) = '')
),

cleaned as (
    select
        file_path,
        file_fingerprint,
        line_number,
        regexp_replace(
            case when line_number = 1 then ltrim(line_text, chr(65279)) else line_text end, '\r$', ''
        ) as line_text,
        escaped_line
    from physical_lines
)

select
    file_path,
    file_fingerprint,
    line_number::bigint as line_number,
    line_text,
    coalesce(line_text, escaped_line) as raw_text,
    line_text is null as is_invalid_utf8,
    coalesce(trim(line_text, ' ' || chr(9) || chr(11) || chr(12) || chr(13)) = '', false) as is_blank,
    null::varchar as read_error
from cleaned
"""


def read_gzip(path):
    """Return (decompressed bytes, error) of every gzip member in the file (appending with
    `gzip.open(path, "ab")` adds members); bytes decoded before a fault are kept."""
    chunks = []
    try:
        with open(path, "rb") as handle:
            pending = handle.read()
    except OSError as error:
        return None, f"unreadable: {error.strerror}"
    try:
        while pending:
            decompressor = zlib.decompressobj(wbits=31)
            chunks.append(decompressor.decompress(pending))
            chunks.append(decompressor.flush())
            if not decompressor.eof:
                return b"".join(chunks), "truncated_gzip"
            pending = decompressor.unused_data
    except zlib.error as error:
        return b"".join(chunks), f"corrupt_gzip: {error}"
    return b"".join(chunks), None


def read_plain(path):
    """Return (bytes, error) for a plain file, read whole (never through a glob)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except OSError as error:
        return None, f"unreadable: {error.strerror}"


UNREAD_FINGERPRINTS = {
    "unreadable": "unreadable: cannot stat",
    "not_a_regular_file": "unreadable: not a regular file",
}


def load_batch(session, batch):
    """Split one batch of files into raw_lines_loaded, with one file record per file."""
    session.execute("delete from raw_batch_content")
    rows = []
    for file_path, absolute_path, fingerprint, _ in batch:
        if fingerprint in UNREAD_FINGERPRINTS:
            content, error = None, UNREAD_FINGERPRINTS[fingerprint]
        elif absolute_path.endswith(".gz"):
            content, error = read_gzip(absolute_path)
        else:
            content, error = read_plain(absolute_path)
        rows.append((file_path, fingerprint, content, error))
    columns = [list(column) for column in zip(*rows, strict=True)]  # one statement: no per-file insert
    session.execute(
        "insert into raw_batch_content select unnest($1), unnest($2), unnest($3::blob[]), unnest($4)", columns
    )
    session.execute(f"insert into raw_lines_loaded {SPLIT_SQL}")
    session.execute(
        "insert into raw_lines_loaded "
        "select file_path, file_fingerprint, 0, null, null, false, true, read_error from raw_batch_content"
    )


def batches(files):
    batch, held = [], 0
    for row in files:
        if batch and held + (row[3] or 0) > BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append(row)
        held += row[3] or 0
    if batch:
        yield batch


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="append")
    inventory = dbt.ref("stg_raw_files")
    todo = inventory.select("file_path, absolute_path, file_fingerprint, size_bytes")
    if dbt.is_incremental:
        loaded = session.sql(f"select distinct file_path, file_fingerprint from {dbt.this}")
        todo = todo.join(loaded, "file_path", how="anti")
    files = todo.order("file_path").fetchall()
    session.execute(f"create or replace temp table raw_batch_content ({CONTENT_COLUMNS})")
    session.execute(f"create or replace temp table raw_lines_loaded ({LINE_COLUMNS})")
    for batch in batches(files):
        load_batch(session, batch)
    session.execute("drop table raw_batch_content")
    return session.table("raw_lines_loaded")
