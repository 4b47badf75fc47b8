"""Every physical line of every raw log file, loaded incrementally by file identity.

Grain: one row per file and line number, plus one file record per file (line_number 0) that
carries the file's fingerprint and `read_error`, so a file is read once per fingerprint even
when it holds no line. On an incremental run, the pre-hook (see _staging__models.yml) has already
deleted the rows of files that are gone or whose fingerprint changed; this model reads only the
files that have no rows left: new files and changed ones, each reloaded whole.

Reading is done in Python: each file's bytes are read whole (never through a glob, so names with
`*`, `?`, `[` or `{` are safe), gzip files decompressed (every member; bytes decoded before a fault
are kept). Decoding is per line, so one bad byte spoils one line, never a file: a line is valid
when its bytes are valid UTF-8. Python replaces each invalid line by its escaped byte form, the
text DuckDB gives its bytes cast from blob to text (`\\xNN` for every byte but the printable ASCII
other than `"`, `'` and `\\`, so `\\x0A` is always a newline) less one trailing `\\x0D`, and notes
its number; the batch's texts, now valid UTF-8, reach DuckDB through a few temporary files.
Splitting is SQL: lines are split on `\\n`; on a valid line a trailing `\\r` and, on line 1, UTF-8
byte order marks are removed; an invalid line has no line_text and its escaped form as raw_text;
the empty piece after a final newline is not a line.
"""

import os
import secrets
import tempfile
import zlib

BATCH_BYTES = 256 * 1024 * 1024  # file bytes split by one SQL statement
# One row per file of the batch; content only for a text handed over as a parameter (see ScratchTexts).
CONTENT_COLUMNS = "file_path varchar, file_fingerprint varchar, content varchar, read_error varchar"
LINE_COLUMNS = (
    "file_path varchar, file_fingerprint varchar, line_number bigint, line_text varchar, "
    "raw_text varchar, is_invalid_utf8 boolean, is_blank boolean, read_error varchar"
)
# $1: the scratch files, holding the texts of the files $2 (fingerprints $3) joined by $4 (see
# ScratchTexts); $5 and $6: the file_path and line_number of each line that is not valid UTF-8.
SPLIT_SQL = r"""
with

scratch_texts as (
    select
        cast(regexp_extract(filename, '(\d+)$', 1) as bigint) as first_number,
        string_split(decode(content), $4) as texts
    from read_blob($1::varchar[])
),

texts as (
    select file_path, file_fingerprint, content
    from raw_batch_content
    where content is not null
    union all
    select $2[number] as file_path, $3[number] as file_fingerprint, content
    from (
        select first_number + generate_subscripts(texts, 1) - 1 as number, unnest(texts) as content
        from scratch_texts
    )
),

file_pieces as (
    select file_path, file_fingerprint, string_split(content, chr(10)) as pieces
    from texts
),

pieces as (
    select
        file_path,
        file_fingerprint,
        generate_subscripts(pieces, 1) as line_number,
        len(pieces) as piece_count,
        unnest(pieces) as piece
    from file_pieces
),

invalid_lines as (
    select unnest($5::varchar[]) as file_path, unnest($6::bigint[]) as line_number
),

physical_lines as (
    select
        pieces.file_path,
        pieces.file_fingerprint,
        pieces.line_number,
        pieces.piece,
        invalid_lines.line_number is not null as is_invalid_utf8,
        case when pieces.line_number = 1 then ltrim(pieces.piece, chr(65279)) else pieces.piece end as unmarked
    from pieces
    left join invalid_lines
        on pieces.file_path = invalid_lines.file_path and pieces.line_number = invalid_lines.line_number
    where not (pieces.line_number = pieces.piece_count and pieces.piece = '')
),

cleaned as (
    select
        file_path,
        file_fingerprint,
        line_number,
        piece,
        is_invalid_utf8,
        case when suffix(unmarked, chr(13)) then left(unmarked, -1) else unmarked end as text
    from physical_lines
)

select
    file_path,
    file_fingerprint,
    line_number::bigint as line_number,
    case when not is_invalid_utf8 then text end as line_text,
    case when is_invalid_utf8 then piece else text end as raw_text,
    is_invalid_utf8,
    not is_invalid_utf8 and regexp_full_match(text, '[ \t\x0B\x0C\r]*') as is_blank,
    null::varchar as read_error
from cleaned
"""
GLOB_CHARACTERS = frozenset("*?[]{}\\")  # read_blob takes a name holding one as a pattern
SCRATCH_BYTES = 4 * 1024 * 1024  # texts per scratch file: DuckDB reads the files in parallel
CHUNK_BYTES = 16 * 1024  # text_with_escaped_lines checks UTF-8 in chunks of about this size
ESCAPES = {byte: f"\\x{byte:02X}" for byte in range(256) if not (0x20 <= byte < 0x7F and byte not in b"\"'\\")}


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


def escaped_line(line):
    """The raw_text of an invalid line: its bytes as DuckDB casts a blob to text, less one trailing CR."""
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("latin-1").translate(ESCAPES).encode("ascii")


def is_utf8(data):
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def text_with_escaped_lines(data):
    """Return (UTF-8 bytes, numbers of the invalid lines): data with each line that is not valid
    UTF-8 replaced by escaped_line. Checked in chunks of whole lines, a failing chunk line by line
    (a newline byte is never part of a multi-byte character)."""
    view, parts, invalid = memoryview(data), [], []
    copied, start, line_number = 0, 0, 1  # data[:copied] is in parts; line_number is the line at start
    while start < len(data):
        end = data.find(b"\n", start + CHUNK_BYTES) + 1 or len(data)
        chunk = data[start:end]
        if is_utf8(chunk):
            line_number += chunk.count(b"\n")
        else:
            for line in chunk.split(b"\n"):
                if not is_utf8(line):
                    parts += [view[copied:start], escaped_line(line)]
                    invalid.append(line_number)
                    copied = start + len(line)
                start += len(line) + 1
                line_number += 1
            line_number -= 1  # the piece after the chunk's last newline starts the next chunk
        start = end
    if not invalid:
        return data, []
    parts.append(view[copied:])
    return b"".join(parts), invalid


UNREAD_FINGERPRINTS = {
    "unreadable": "unreadable: cannot stat",
    "not_a_regular_file": "unreadable: not a regular file",
}


def read_file(absolute_path, fingerprint):
    if fingerprint in UNREAD_FINGERPRINTS:
        return None, UNREAD_FINGERPRINTS[fingerprint]
    if absolute_path.endswith(".gz"):
        return read_gzip(absolute_path)
    return read_plain(absolute_path)


class ScratchTexts:
    """Texts handed to DuckDB through scratch files of about SCRATCH_BYTES each, read by one
    read_blob (a parameter per text costs ~30 ms per 10 MB), joined by a separator that occurs in
    none of them: its first character occurs in it only once, so it cannot match across the end of
    a text. The file holding texts number n, n + 1, ... is named n. add() refuses a text holding
    the separator, and every text when read_blob cannot read such files (no file access for
    DuckDB, no temporary folder, a glob character in the folder's name)."""

    def __init__(self, session):
        self.paths, self.count, self.handle = [], 0, None
        self.separator = "\x1f" + secrets.token_hex(16) + "\x1e"
        self.marker = self.separator.encode()
        self.folder = None
        if session.execute("select current_setting('enable_external_access')").fetchone()[0]:
            try:
                self.folder = tempfile.TemporaryDirectory(prefix="runlens-lines-", ignore_cleanup_errors=True)
            except OSError:
                pass
        if self.folder is not None and GLOB_CHARACTERS.intersection(self.folder.name):
            self.folder.cleanup()
            self.folder = None

    def add(self, text):
        """Write text as the next one; False, writing nothing, when it cannot."""
        if self.folder is None or self.marker in text:
            return False
        if self.handle is None or self.handle.tell() >= SCRATCH_BYTES:
            self.close()
            self.paths.append(os.path.join(self.folder.name, str(self.count + 1)))
            self.handle = open(self.paths[-1], "wb")  # closed by close()
        else:
            self.handle.write(self.marker)
        self.handle.write(text)
        self.count += 1
        return True

    def close(self):
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()
        if self.folder is not None:
            self.folder.cleanup()


def load_batch(session, batch):
    """Split one batch of files into raw_lines_loaded, with one file record per file."""
    session.execute("delete from raw_batch_content")
    records, in_scratch, invalid_files, invalid_numbers = [], [], [], []
    with ScratchTexts(session) as scratch:
        for file_path, absolute_path, fingerprint, _ in batch:
            content, error = read_file(absolute_path, fingerprint)
            text, invalid = (None, []) if content is None else text_with_escaped_lines(content)
            invalid_files += [file_path] * len(invalid)
            invalid_numbers += invalid
            if text is not None and not scratch.add(text):
                session.execute(
                    "insert into raw_batch_content values ($1, $2, decode($3::blob), $4)",
                    [file_path, fingerprint, text, error],
                )
                continue
            records.append((file_path, fingerprint, error))
            if text is not None:
                in_scratch.append((file_path, fingerprint))
        scratch.close()  # DuckDB reads the files whole
        if records:
            session.execute(
                "insert into raw_batch_content "
                "select unnest($1::varchar[]), unnest($2::varchar[]), null, unnest($3::varchar[])",
                [list(column) for column in zip(*records, strict=True)],
            )
        files, fingerprints = [list(column) for column in zip(*in_scratch, strict=True)] or [[], []]
        session.execute(
            f"insert into raw_lines_loaded {SPLIT_SQL}",
            [scratch.paths, files, fingerprints, scratch.separator, invalid_files, invalid_numbers],
        )
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
