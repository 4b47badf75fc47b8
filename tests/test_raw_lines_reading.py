"""stg_raw_lines' reading and splitting, driven in-process as scripts/engines/raw_loader.py does it,
compared with a plain-Python statement of the documented line semantics (no dbt build: fast).

- a line is a piece of the file's bytes split on `\\n`; the empty piece after a final newline is not
  a line, and an empty file has none;
- a valid UTF-8 line loses one trailing `\\r` and, on line 1, its leading byte order marks;
  is_blank when only space, tab, VT, FF and CR remain;
- an invalid line has no line_text; its raw_text is DuckDB's blob-to-text form of its bytes less
  one trailing `\\x0D` (checked against DuckDB's own cast, byte by byte);
- one file record (line_number 0) per file carries the read_error.
"""

from __future__ import annotations

import gzip
import os
import random
import zlib

import duckdb
import pytest
from engines.raw_loader import load_model_module

LINES = load_model_module("stg_raw_lines")
FILES = load_model_module("stg_raw_files")


def escaped(data: bytes) -> str:
    return "".join(chr(byte) if 0x20 <= byte < 0x7F and byte not in b"\"'\\" else f"\\x{byte:02X}" for byte in data)


def expected_lines(data: bytes) -> list[tuple]:
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    lines = []
    for number, piece in enumerate(pieces, 1):
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            raw = escaped(piece[:-1] if piece.endswith(b"\r") else piece)
            lines.append((number, None, raw, True, False))
            continue
        text = text.lstrip("\ufeff") if number == 1 else text
        text = text[:-1] if text.endswith("\r") else text
        lines.append((number, text, text, False, text.strip(" \t\x0b\x0c\r") == ""))
    return lines


def load(raw_dir, connection=None) -> dict[str, tuple[str | None, list[tuple]]]:
    """{file_path: (read_error, [(line_number, line_text, raw_text, is_invalid_utf8, is_blank)])}"""
    raw_dir = os.path.abspath(raw_dir)
    inventory = [FILES.inventory_row(raw_dir, path) for path in FILES.find_log_files(raw_dir)]
    todo = [(row[0], row[1], row[5], row[2]) for row in inventory]
    connection = connection or duckdb.connect()
    connection.execute(f"create temp table raw_batch_content ({LINES.CONTENT_COLUMNS})")
    connection.execute(f"create temp table raw_lines_loaded ({LINES.LINE_COLUMNS})")
    for batch in LINES.batches(todo):
        LINES.load_batch(connection, batch)
    loaded = {}
    query = (
        "select file_path, line_number, line_text, raw_text, is_invalid_utf8, is_blank, read_error, "
        "file_fingerprint from raw_lines_loaded order by file_path, line_number"
    )
    fingerprints = {row[0]: row[5] for row in inventory}
    for path, number, text, raw, invalid, blank, error, fingerprint in connection.execute(query).fetchall():
        assert fingerprint == fingerprints[path]
        if number == 0:
            assert (text, raw, invalid, blank) == (None, None, False, True)
            assert path not in loaded
            loaded[path] = (error, loaded.get(path, (None, []))[1])
        else:
            assert error is None
            loaded.setdefault(path, (None, []))[1].append((number, text, raw, invalid, blank))
    assert set(loaded) == set(fingerprints)
    return loaded


J = b'{"run_id": "r", "event": "x"}'
NASTY = {
    "valid.jsonl": J + b"\n" + J + b"\n",
    "invalid_start.jsonl": b"\xff" + J + b"\n" + J + b"\n",
    "invalid_end_no_newline.jsonl": J + b"\xff\n" + J + b"\xc3",
    "invalid_middle.jsonl": J + b"\n" + J[:5] + b"\x80\x80" + J[5:] + b"\n" + J + b"\n",
    "crlf.jsonl": J + b"\r\n" + J + b"\r\n\r\n",
    "crlf_invalid.jsonl": J + b"\xfe\r\n" + J + b"\r\r\n\r\n\xff\r\r\n",
    "cr_only.jsonl": J + b"\r" + J + b"\r",
    "cr_only_invalid.jsonl": J + b"\r\xff" + J + b"\r",
    "bom.jsonl": b"\xef\xbb\xbf" + J + b"\n\xef\xbb\xbf" + J + b"\n",
    "bom_twice_crlf.jsonl": b"\xef\xbb\xbf\xef\xbb\xbf" + J + b"\r\n",
    "bom_invalid_line1.jsonl": b"\xef\xbb\xbf" + J + b"\xff\r\n" + J + b"\n",
    "bom_invalid_later.jsonl": b"\xef\xbb\xbf" + J + b"\r\n\xef\xbb\xbf\xff\n",
    "bom_only.jsonl": b"\xef\xbb\xbf",
    "bom_cr_then_invalid.jsonl": b"\xef\xbb\xbf\r\n\xff",
    "nul.jsonl": J + b"\x00\n\x00\n\x00\xff\n",
    "lone_cr_lines.jsonl": b"\r\n" + J + b"\n\r",
    "lone_cr_lines_invalid.jsonl": b"\r\n\xff\n\r",
    "empty.jsonl": b"",
    "newline_only.jsonl": b"\n",
    "newlines_then_invalid.jsonl": b"\n\n\xff",
    "blank_kinds.jsonl": b" \t\x0b\x0c\r\n \xc2\xa0\n\x0b\n \r \r\n\x1c\n\xe3\x80\x80\n\xff\n",
    "escapes.jsonl": b"\\x0A \\x0D\\ \"q' \x7f\x01\xff\\x0D\r\n\\x0D\xff\\x0D\n\xff\\x5Cx0D\r\n",
    "multibyte.jsonl": "é日本🎉".encode() + b"\xff" + "é".encode() + b"\n" + "é日本🎉\r".encode() + b"\n",
    "not_quite_utf8.jsonl": b"a\xed\xa0\x80b\nc\xf4\x90\x80\x80\n\xc0\x80\n\xef\xbf\xbf\n\xe2\x82\n\xf0\x9f\x8e",
    "all_bytes.jsonl": bytes(range(256)) + b"\n" + bytes(range(256))[::-1] + b"\n",
    "a b ü日本.jsonl": J + b"\n\xff\n",
    "star*.jsonl": J + b"\n\xff\n",
    "brackets[1].jsonl": J + b"\n",
    "brace{a,b}?.jsonl": J + b"\n\xff\n",
    "back\\slash'quote\".jsonl": J + b"\n",
    "star-decoy.jsonl": b"a file star*.jsonl would match as a pattern\n",
    "new\nline.jsonl": J + b"\n\xff",
    "sub/nested.jsonl": J + b"\n\xff",
}
GZIP = {
    "members.jsonl.gz": (gzip.compress(J + b"\n") + gzip.compress(b"\xff" + J + b"\n") + gzip.compress(b"t"), None),
    "empty.jsonl.gz": (b"", None),
    "empty_member.jsonl.gz": (gzip.compress(b""), None),
    "crlf.jsonl.gz": (gzip.compress(J + b"\r\n" + J), None),
}


def write(raw, name, data):
    path = raw / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture(scope="module")
def nasty(tmp_path_factory):
    raw = tmp_path_factory.mktemp("nasty")
    for name, data in NASTY.items():
        write(raw, name, data)
    for name, (data, _) in GZIP.items():
        write(raw, name, data)
    truncated = J + b"\n" + b"\xff\n" + os.urandom(20000).hex().encode() + b"\n"
    write(raw, "truncated.jsonl.gz", gzip.compress(truncated)[:-200])
    write(raw, "corrupt.jsonl.gz", gzip.compress(J + b"\n") + b"\x1f\x8b\x08\x00garbage" * 10)
    write(raw, "not_gzip.jsonl.gz", J + b"\n")
    os.mkfifo(raw / "pipe.jsonl")
    os.symlink("/nonexistent/target.jsonl", raw / "dangling.jsonl")
    return raw


@pytest.fixture(scope="module")
def nasty_loaded(nasty):
    return load(nasty)


@pytest.mark.parametrize("name", list(NASTY), ids=repr)
def test_plain_file_lines(nasty_loaded, name):
    assert nasty_loaded[name] == (None, expected_lines(NASTY[name]))


@pytest.mark.parametrize("name", list(GZIP), ids=repr)
def test_gzip_file_lines(nasty_loaded, name):
    data, error = GZIP[name]
    members = b""
    while data:
        decompressor = zlib.decompressobj(wbits=31)
        members += decompressor.decompress(data) + decompressor.flush()
        data = decompressor.unused_data
    assert nasty_loaded[name] == (error, expected_lines(members))


def test_faulty_gzip_files_keep_what_was_decoded(nasty_loaded):
    loaded = nasty_loaded
    error, lines = loaded["truncated.jsonl.gz"]
    assert error == "truncated_gzip"
    assert lines[:2] == [(1, J.decode(), J.decode(), False, False), (2, None, "\\xFF", True, False)]
    error, lines = loaded["corrupt.jsonl.gz"]
    assert error.startswith("corrupt_gzip: ") and lines == expected_lines(J + b"\n")
    assert loaded["not_gzip.jsonl.gz"][0].startswith("corrupt_gzip: ")


def test_files_that_cannot_be_read_have_only_their_record(nasty_loaded):
    assert nasty_loaded["dangling.jsonl"] == ("unreadable: cannot stat", [])
    assert nasty_loaded["pipe.jsonl"] == ("unreadable: not a regular file", [])


def test_a_file_gone_after_the_inventory_has_only_its_record(tmp_path):
    for name in ("kept.jsonl", "gone.jsonl", "now_a_folder.jsonl"):
        (tmp_path / name).write_bytes(b"a\n\xff\n")
    inventory = [FILES.inventory_row(str(tmp_path), path) for path in FILES.find_log_files(str(tmp_path))]
    (tmp_path / "gone.jsonl").unlink()
    (tmp_path / "now_a_folder.jsonl").unlink()
    (tmp_path / "now_a_folder.jsonl").mkdir()
    connection = duckdb.connect()
    connection.execute(f"create temp table raw_batch_content ({LINES.CONTENT_COLUMNS})")
    connection.execute(f"create temp table raw_lines_loaded ({LINES.LINE_COLUMNS})")
    LINES.load_batch(connection, [(row[0], row[1], row[5], row[2]) for row in inventory])
    rows = connection.execute("select file_path, line_number, read_error from raw_lines_loaded order by all").fetchall()
    assert rows == [
        ("gone.jsonl", 0, "unreadable: No such file or directory"),
        ("kept.jsonl", 0, None),
        ("kept.jsonl", 1, None),
        ("kept.jsonl", 2, None),
        ("now_a_folder.jsonl", 0, "unreadable: Is a directory"),
    ]


def test_escaped_bytes_are_duckdbs_blob_to_text_cast():
    connection = duckdb.connect()
    for byte in range(256):
        cast = connection.execute("select ?::blob::varchar", [bytes([byte, 0x41])]).fetchone()[0]
        assert LINES.escaped_line(bytes([byte, 0x41])).decode() == cast == escaped(bytes([byte, 0x41]))


def test_texts_handed_as_parameters_give_the_same_lines(nasty, nasty_loaded, monkeypatch, tmp_path):
    by_file = nasty_loaded
    assert load(nasty, duckdb.connect(config={"enable_external_access": False})) == by_file
    monkeypatch.setattr(LINES.tempfile, "tempdir", str(tmp_path / "glob*[x]"))
    os.mkdir(tmp_path / "glob*[x]")
    assert load(nasty) == by_file


def test_a_text_holding_the_separator(tmp_path, monkeypatch):
    monkeypatch.setattr(LINES.secrets, "token_hex", lambda size: "ab" * size)
    separator = ("\x1f" + "ab" * 16 + "\x1e").encode()
    files = {"a.jsonl": b"x\n", "b.jsonl": b"y" + separator + b"z\n\xff" + separator, "c.jsonl": separator[:9]}
    files["d.jsonl"] = separator[9:] + b"\n"
    for name, data in files.items():
        write(tmp_path, name, data)
    assert load(tmp_path) == {name: (None, expected_lines(data)) for name, data in files.items()}


FRAGMENTS = [b"a", b"{", b'"', b"'", b"\\", b" ", b"\t", b"\x0b", b"\x0c", b"\r", b"\n", b"\r\n", b"\x00"]
FRAGMENTS += [b"\x7f", b"\x80", b"\xff", b"\xc3", b"\xc3\xa9", b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xf0\x9f"]
FRAGMENTS += ["日🎉".encode(), b"\xc2\x85", b"\\x0D", b"\xe3\x80\x80"]


@pytest.mark.parametrize("seed", range(3))
def test_random_files_in_small_chunks_and_scratch_files(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(LINES, "CHUNK_BYTES", [1, 5, 64][seed])
    monkeypatch.setattr(LINES, "SCRATCH_BYTES", [1, 40, 1000][seed])
    generator = random.Random(seed)
    files = {}
    for number in range(150):
        size = generator.choice([0, 1, 2, 5, 20, 200])
        alphabet = FRAGMENTS if generator.random() < 0.5 else FRAGMENTS[:13]
        files[f"f{number}.jsonl"] = b"".join(generator.choice(alphabet) for _ in range(size))
    for name, data in files.items():
        if name.endswith("7.jsonl"):
            write(tmp_path, name + ".gz", gzip.compress(data))
        else:
            write(tmp_path, name, data)
    loaded = load(tmp_path)
    for name, data in files.items():
        assert loaded[name + ".gz" if name.endswith("7.jsonl") else name] == (None, expected_lines(data)), name
