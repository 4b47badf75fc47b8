"""Unit tests for report.markdown: escaping hostile names, slugs, and number formatting."""

from __future__ import annotations

import hashlib
import random
import re
import string
from decimal import Decimal

import pytest

from runlens.report.markdown import (
    escape_code,
    escape_text,
    fmt_count,
    fmt_hours,
    fmt_minutes,
    fmt_percent,
    fmt_ratio,
    fmt_signed_hours,
    slugify,
    unique_slugs,
)

HOSTILE = [
    "x|y `z` <b>",
    "[click](http://evil)",
    "![img](javascript:alert(1))",
    "<script>alert(1)</script>",
    "<!-- comment -->",
    "../../etc",
    "# heading",
    "*bold* _em_ __strong__ ~~strike~~",
    "1. item",
    "- item",
    "+ item",
    "> quote",
    "---",
    "===",
    "a\nb",
    "a\r\nb\tc",
    "\x00\x07\x1b[31mred\x7f\x85end\u2028\u2029",
    "back\\slash\\|pipe",
    "\\",
    "a\\",
    "|",
    "||",
    "\\|",
    "",
    "&",
    "&lt; &amp; &#x3C; &#60;",
    "`",
    "```fence```",
    "{curly} (round) [square]",
    "$x^2$",
    "http://evil.example www.evil.example",
    "from-entangled-v2/continuous-v3-beta-schedule",
    "Café/β 日本",
    "    four spaces",
    string.punctuation,
]

_PUNCT = re.escape(string.punctuation)
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_ESCAPED = re.compile(rf"\\([{_PUNCT}])|&(lt|gt|amp);")
# Escaped Markdown consists only of backslash escapes, the three entities, and characters that are neither
# ASCII punctuation nor control characters.
_ESCAPED_TOKENS = re.compile(rf"(?:\\[{_PUNCT}]|&(?:lt|gt|amp);|[^{_PUNCT}{_CONTROLS}])*")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")  # GFM: a pipe preceded by a backslash does not split a row


def unescape(markdown: str) -> str:
    """What a CommonMark renderer shows for escape_text output: drop escaping backslashes, decode entities."""
    return _ESCAPED.sub(lambda m: m.group(1) or {"lt": "<", "gt": ">", "amp": "&"}[m.group(2)], markdown)


def table_cells(row: str) -> list[str]:
    """Split a GFM table row on unescaped pipes, dropping the outer empty pieces."""
    return _UNESCAPED_PIPE.split(row.strip())[1:-1]


def expected_text(value: str) -> str:
    return re.sub(f"[{_CONTROLS}]+", " ", value)


@pytest.mark.parametrize("value", HOSTILE)
def test_escape_text_is_inert(value):
    escaped = escape_text(value)
    assert _UNESCAPED_PIPE.search(escaped) is None
    assert "<" not in escaped and ">" not in escaped
    assert "\n" not in escaped and "\r" not in escaped and "\t" not in escaped
    assert "](" not in escaped
    assert _ESCAPED_TOKENS.fullmatch(escaped), escaped
    assert unescape(escaped) == expected_text(value)
    cells = table_cells(f"| {escaped} | 1 |")
    assert len(cells) == 2 and cells[1].strip() == "1"


def test_escape_text_exact_outputs():
    assert escape_text(None) == ""
    assert escape_text("") == ""
    assert escape_text("plain name 42") == "plain name 42"
    assert escape_text("x|y `z` <b>") == "x\\|y \\`z\\` &lt;b&gt;"
    assert escape_text("[click](http://evil)") == "\\[click\\]\\(http\\:\\/\\/evil\\)"
    assert escape_text("a\r\n\tb\nc") == "a b c"
    assert escape_text("a&b") == "a&amp;b"
    assert escape_text("&lt;") == "&amp;lt\\;"  # shows the literal text "&lt;", not "<"
    assert escape_text("back\\slash") == "back\\\\slash"
    assert escape_text("Café β") == "Café β"


def test_escape_text_is_applied_once_not_idempotent():
    once = escape_text("*a* <b>")
    twice = escape_text(once)
    assert twice != once
    assert unescape(twice) == once  # double escaping shows the escapes: callers escape raw names exactly once


def parse_code_span(span: str, *, table: bool) -> str:
    """The text a CommonMark renderer shows for a single code span (after GFM table unescaping of pipes)."""
    fence = re.match("`+", span).group()
    assert span.endswith(fence) and len(span) >= 2 * len(fence) + 1
    content = span[len(fence) : -len(fence)]
    runs = re.findall("`+", content)
    assert fence not in runs, "an inner backtick run as long as the fence would close the span early"
    assert not content.startswith("`") and not content.endswith("`")
    if table:
        assert _UNESCAPED_PIPE.search(content) is None
        content = content.replace("\\|", "|")
    if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
        content = content[1:-1]
    return content


CODE_VALUES = [
    "lr",
    "a|b",
    "a\\|b",
    "`",
    "``",
    "a`b",
    "a``b```c",
    "`start",
    "end`",
    " padded ",
    "   ",
    "a\nb\tc",
    "x|y `z` <b>",
    "[click](http://evil)",
    "|`|",
]


@pytest.mark.parametrize("value", CODE_VALUES)
def test_escape_code_roundtrips(value):
    span = escape_code(value)
    assert "\n" not in span and "\t" not in span
    assert parse_code_span(span, table=True) == expected_text(value)
    assert len(table_cells(f"| {span} | 1 |")) == 2
    assert parse_code_span(escape_code(value, table=False), table=False) == expected_text(value)


def test_escape_code_exact_outputs():
    assert escape_code("lr") == "`lr`"
    assert escape_code("a|b") == "`a\\|b`"
    assert escape_code("a|b", table=False) == "`a|b`"
    assert escape_code("a`b") == "``a`b``"
    assert escape_code("`x") == "`` `x ``"
    assert escape_code("a``b") == "```a``b```"
    assert escape_code(" a ") == "`  a  `"
    assert escape_code("a\r\nb") == "`a b`"
    assert escape_code(None) == "` `"
    assert escape_code("") == "` `"


SLUG_SHAPE = re.compile("[a-z0-9]+(?:-[a-z0-9]+)*")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("from-entangled-v2/continuous-v3-beta-schedule", "from-entangled-v2-continuous-v3-beta-schedule"),
        ("Café/β", "cafe"),
        ("../../etc", "etc"),
        ("..", "collection"),
        (".", "collection"),
        ("/", "collection"),
        ("\\", "collection"),
        ("", "collection"),
        ("β日本", "collection"),
        ("a/b\\c", "a-b-c"),
        ("  Mixed_CASE  name!! ", "mixed-case-name"),
        ("ＡＢＣ１", "abc1"),
        ("x|y `z` <b>", "x-y-z-b"),
    ],
)
def test_slugify(name, slug):
    assert slugify(name) == slug


@pytest.mark.parametrize("name", [*HOSTILE, "a" * 200, "ab-" * 40, "x" * 79 + "-y"])
def test_slugify_shape(name):
    slug = slugify(name)
    assert SLUG_SHAPE.fullmatch(slug), slug
    assert len(slug) <= 80
    assert slug not in (".", "..") and "/" not in slug and "\\" not in slug


def test_slugify_none_and_cap():
    assert slugify(None) == "collection"
    assert slugify("a" * 200) == "a" * 80
    assert slugify("x" * 79 + "-y") == "x" * 79  # the cut leaves no trailing dash


def h8(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def test_unique_slugs_collisions_get_hash_suffixes():
    names = ["a b", "A-B", "a_b", "solo", "from-entangled-v2/continuous-v3-beta-schedule"]
    assert unique_slugs(names) == {
        "A-B": f"a-b-{h8('A-B')}",
        "a b": f"a-b-{h8('a b')}",
        "a_b": f"a-b-{h8('a_b')}",
        "from-entangled-v2/continuous-v3-beta-schedule": "from-entangled-v2-continuous-v3-beta-schedule",
        "solo": "solo",
    }


def test_unique_slugs_empty_and_duplicates():
    assert unique_slugs([]) == {}
    assert unique_slugs(["x", "x", "x"]) == {"x": "x"}
    assert unique_slugs(["", "..", "/"]) == {n: f"collection-{h8(n)}" for n in ["", "..", "/"]}


def test_unique_slugs_deterministic_under_shuffling():
    names = [*HOSTILE, "a b", "a-b", "A B", "café", "cafe", "CAFÉ", "x" * 200, "x" * 201]
    expected = unique_slugs(names)
    assert list(expected) == sorted(set(names))
    rng = random.Random(1234)
    for _ in range(25):
        shuffled = names[:]
        rng.shuffle(shuffled)
        result = unique_slugs(shuffled)
        assert result == expected and list(result) == list(expected)
    assert len(set(expected.values())) == len(expected)
    for slug in expected.values():
        assert SLUG_SHAPE.fullmatch(slug) and len(slug) <= 80


def test_unique_slugs_suffix_clash_with_a_literal_name_escalates():
    sneaky = f"a-b-{h8('a b')}"  # a name that is literally what "a b" would be suffixed to
    result = unique_slugs(["a b", "a-b", sneaky])
    assert len(set(result.values())) == 3
    assert result["a-b"] == f"a-b-{h8('a-b')}"
    assert all(SLUG_SHAPE.fullmatch(s) and len(s) <= 80 for s in result.values())


def test_unique_slugs_long_colliding_names_stay_within_80():
    names = ["y" * 100 + "1!", "y" * 100 + "2!"]  # both slug to 80 y's
    result = unique_slugs(names)
    assert {len(s) for s in result.values()} == {80}
    assert result[names[0]] == "y" * 71 + "-" + h8(names[0])


@pytest.mark.parametrize(
    ("func", "value", "text"),
    [
        (fmt_hours, 1.2345, "1.23h"),
        (fmt_hours, 0, "0.00h"),
        (fmt_hours, -0.0, "0.00h"),
        (fmt_hours, -0.001, "0.00h"),
        (fmt_hours, -9.031, "-9.03h"),
        (fmt_hours, 1.005, "1.00h"),  # binary 1.00499999... : f-string rounding, not decimal rounding
        (fmt_hours, 0.125, "0.12h"),  # exact binary tie -> even
        (fmt_hours, 0.375, "0.38h"),
        (fmt_hours, Decimal("1.005"), "1.00h"),  # float() first, so Decimal prints like float
        (fmt_hours, 1234.5, "1234.50h"),
        (fmt_hours, None, "n/a"),
        (fmt_hours, float("nan"), "n/a"),
        (fmt_hours, float("inf"), "n/a"),
        (fmt_minutes, 13.58, "13.6 min"),
        (fmt_minutes, 0.04, "0.0 min"),
        (fmt_minutes, -0.04, "0.0 min"),
        (fmt_minutes, None, "n/a"),
        (fmt_percent, 11.8123, "11.81%"),
        (fmt_percent, 100, "100.00%"),
        (fmt_percent, -0.001, "0.00%"),
        (fmt_percent, None, "n/a"),
        (fmt_ratio, 8.31, "8.3x"),
        (fmt_ratio, 8.25, "8.2x"),  # exact binary tie -> even
        (fmt_ratio, 1, "1.0x"),
        (fmt_ratio, None, "n/a"),
        (fmt_signed_hours, -9.03, "-9.03h"),
        (fmt_signed_hours, 0.5, "+0.50h"),
        (fmt_signed_hours, 0, "0.00h"),
        (fmt_signed_hours, -0.0, "0.00h"),
        (fmt_signed_hours, -0.004, "0.00h"),
        (fmt_signed_hours, 0.004, "0.00h"),
        (fmt_signed_hours, 0.005, "+0.01h"),  # binary 0.005000000000000000104...
        (fmt_signed_hours, None, "n/a"),
        (fmt_count, 1234, "1,234"),
        (fmt_count, 0, "0"),
        (fmt_count, -1234567, "-1,234,567"),
        (fmt_count, 10**20, "100,000,000,000,000,000,000"),
        (fmt_count, 1234.0, "1,234"),
        (fmt_count, -0.4, "0"),
        (fmt_count, None, "n/a"),
    ],
)
def test_number_formats(func, value, text):
    assert func(value) == text


@pytest.mark.parametrize("value", [1.005, 2.675, 0.125, 0.375, 1.115, 13.65, 99.995, 1e-9, 123456.789])
def test_rounding_rule_is_python_fstring(value):
    assert fmt_hours(value) == f"{value:.2f}h"
    assert fmt_percent(value) == f"{value:.2f}%"
    assert fmt_minutes(value) == f"{value:.1f} min"
    assert fmt_ratio(value) == f"{value:.1f}x"
    assert fmt_signed_hours(value) == (f"{value:+.2f}h" if f"{value:.2f}" != "0.00" else "0.00h")
