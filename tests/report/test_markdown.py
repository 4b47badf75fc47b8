"""Unit tests for report.markdown: escaping hostile names (checked with a real CommonMark renderer,
markdown-it-py, with GitHub's tables and strikethrough) and slugs."""

from __future__ import annotations

import hashlib
import random
import re
import string

import pytest
from markdown_it import MarkdownIt

from runlens.report.markdown import escape_code, escape_text, slugify, unique_slugs

HOSTILE = [
    "x|y `z` <b>",
    "[click](http://evil)",
    "![img](javascript:alert(1))",
    "<script>alert(1)</script>",
    "<!-- comment -->",
    "../../etc",
    "# heading",
    "*bold* _em_ __strong__ ~~strike~~ ~one~",
    "1. item",
    "12) item",
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
    "v4-base_conversion-05,",
    "_private __dunder__ a_b_c x_-y",
    "Café/β 日本",
    "    four spaces",
    string.punctuation,
]
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")  # GFM: a pipe preceded by a backslash does not split a row
RENDERER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def table_cells(row: str) -> list[str]:
    """Split a GFM table row on unescaped pipes, dropping the outer empty pieces."""
    return _UNESCAPED_PIPE.split(row.strip())[1:-1]


def expected_text(value: str) -> str:
    return re.sub(f"[{_CONTROLS}]+", " ", value)


def inline_tokens(markdown: str):
    """The inline tokens a CommonMark renderer makes of one paragraph."""
    tokens = RENDERER.parse(markdown)
    inline = [token for token in tokens if token.type == "inline"]
    assert len(inline) == 1, [token.type for token in tokens]
    return inline[0].children


def rendered_text(children) -> str:
    return "".join(child.content for child in children)


@pytest.mark.parametrize("value", HOSTILE)
def test_escape_text_renders_as_exactly_its_characters(value):
    """In a paragraph after a word and in a table cell, the escaped name is text and nothing else:
    no emphasis, link, image, HTML, code, strikethrough, entity or extra cell."""
    escaped = escape_text(value)
    assert "\n" not in escaped and "\r" not in escaped and "\t" not in escaped
    want = expected_text(value)
    if not want.strip():
        return
    # mid-line, as the pages use names, and at the start of a line (a leading space would start
    # an indented code block there, which no page does)
    places = [(f"name: {escaped}", f"name: {want}".rstrip(" "))]
    if not want[0].isspace():
        places.append((escaped, want.rstrip(" ")))
    for markdown, shown in places:
        children = inline_tokens(markdown)
        assert {child.type for child in children} <= {"text"}, (markdown, [child.type for child in children])
        assert rendered_text(children) == shown
    table = RENDERER.parse(f"| a | b |\n|---|---|\n| {escaped} | 1 |\n")
    cells = [token for token in table if token.type == "inline"]
    assert len(cells) == 4, [token.content for token in cells]
    assert {child.type for child in cells[2].children} <= {"text"}
    assert rendered_text(cells[2].children) == want.strip(" ")
    assert rendered_text(cells[3].children) == "1"


def test_escape_text_exact_outputs():
    """Only what would change the Markdown is escaped: names read cleanly in the raw file."""
    assert escape_text(None) == ""
    assert escape_text("") == ""
    assert escape_text("plain name 42") == "plain name 42"
    assert escape_text("v4-base_conversion-05,") == "v4-base_conversion-05,"
    assert escape_text("amnlp/baseline") == "amnlp/baseline"
    assert (
        escape_text("from-entangled-v2 continuous-v3 beta-schedule") == "from-entangled-v2 continuous-v3 beta-schedule"
    )
    assert escape_text("x|y `z` <b>") == "x\\|y \\`z\\` \\<b>"
    assert escape_text("[click](http://evil)") == "\\[click\\](http://evil)"
    assert escape_text("a\r\n\tb\nc") == "a b c"
    assert escape_text("a&b") == "a&b"
    assert escape_text("&lt;") == "\\&lt;"  # shows the literal text "&lt;", not "<"
    assert escape_text("back\\slash") == "back\\\\slash"
    assert escape_text("__init__ a_b") == "\\_\\_init\\_\\_ a_b"
    assert escape_text("1. first") == "1\\. first"
    assert escape_text("- item") == "\\- item"
    assert escape_text("Café β") == "Café β"


def test_escape_text_is_applied_once_not_idempotent():
    once = escape_text("*a* <b>")
    twice = escape_text(once)
    assert twice != once
    assert rendered_text(inline_tokens(twice)) == once  # double escaping shows the escapes: escape raw names once


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
