"""Files of every awkward kind for a raw folder (the line rules' cases, gzip files, random bytes),
and the writing of them."""

from __future__ import annotations

import gzip
import random

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

# bytes that are almost UTF-8, and the line separators other than LF that UTF-8 can spell
UTF8_EDGES = {
    "utf8/surrogate.jsonl": b"a\xed\xa0\x80b\n",
    "utf8/overlong.jsonl": b"\xc0\x80\n",
    "utf8/beyond_unicode.jsonl": b"c\xf4\x90\x80\x80\n",
    "utf8/noncharacter.jsonl": b"\xef\xbf\xbf\n",
    "utf8/cut_at_end.jsonl": J + b"\n" + "日".encode()[:2],
    "utf8/nel.jsonl": b"\xc2\x85\n\xe2\x80\xa8\n",
}
# what a line is at its edges: separators that are no LF, blanks and near-blanks, NULs, BOMs past line 1,
# lines far longer than a read's pieces (2 MiB valid, 1 MiB with one invalid byte)
_LONG = random.Random(7).randbytes(1 << 19).hex().encode()  # 1 MiB of hex digits
LINE_EDGES = {
    "edges/separators.jsonl": "a\u2028b\n\u2029\n\x85\nc\u2028\r\n\x1c\x1d\x1e\n".encode(),
    "edges/blank_or_not.jsonl": b"\t\r\n\x0b\x0c\n\r\r\n \r \n\xc2\xa0\n\xe3\x80\x80\n\x1c\n\x00\n \r",
    "edges/empty_lines.jsonl": b"\n\n\r\n\n" + J,
    "edges/nul.jsonl": b"\x00\n\x00\x00\r\n" + J[:3] + b"\x00" + J[3:] + b"\r\n\x00",
    "edges/bom_later.jsonl": J + b"\n\xef\xbb\xbf" + J + b"\n\xef\xbb\xbf\n",
    "edges/bom_then_blank.jsonl": b"\xef\xbb\xbf \t\r\n",
    "edges/long_lines.jsonl": _LONG + _LONG + b"\r\n" + _LONG[:1000] + b"\xff" + _LONG[1000:] + b"\r\n" + J,
}


def write(raw, name, data):
    path = raw / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


FRAGMENTS = [b"a", b"{", b'"', b"'", b"\\", b" ", b"\t", b"\x0b", b"\x0c", b"\r", b"\n", b"\r\n", b"\x00"]
FRAGMENTS += [b"\x7f", b"\x80", b"\xff", b"\xc3", b"\xc3\xa9", b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xf0\x9f"]
FRAGMENTS += ["日🎉".encode(), b"\xc2\x85", b"\\x0D", b"\xe3\x80\x80"]


def random_files(seed: int, count: int) -> dict[str, bytes]:
    generator = random.Random(seed)
    files = {}
    for number in range(count):
        size = generator.choice([0, 1, 2, 5, 20, 200])
        alphabet = FRAGMENTS if generator.random() < 0.5 else FRAGMENTS[:13]
        files[f"random/f{seed}-{number}.jsonl"] = b"".join(generator.choice(alphabet) for _ in range(size))
    return files


RANDOM = {**random_files(0, 150), **random_files(1, 150)}
