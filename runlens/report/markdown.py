"""Make names safe in Markdown reports (standard library only); figures are units.py's.

Names (tasks, collections, config keys) come from users' logs and are hostile until escaped. Callers
escape each *raw* name exactly once, where it enters Markdown: escaping is not idempotent (a second
pass makes the backslashes visible), so never escape text that is already Markdown.

Only what would change the Markdown is escaped, so the raw file reads cleanly in an editor or a
terminal: `v4-base_conversion-05` and `amnlp/baseline` stay as they are (rules.md, "Names").
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

MAX_SLUG = 80
# what slugify and unique_slugs give: lowercase ASCII letters and digits, runs joined by `-`
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FALLBACK_SLUG = "collection"
_HASH_LENGTHS = (0, 8, 16, 64)  # suffix lengths tried in turn; 8 is the normal case
# C0/C1 controls (tab, CR, LF, NEL, ESC, DEL, ...) and the Unicode line/paragraph separators.
_CONTROL_RUN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
# Characters that start or end Markdown syntax wherever they stand: code, emphasis, links and
# images, raw HTML and autolinks, table cells, GitHub's strikethrough and math, and the escape itself.
_ALWAYS = set("\\`*[]<|~$")
# An entity or character reference (`&amp;`, `&#35;`) would print as the character it names.
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# At the start of the text (where a line might start): a heading, quote, list or setext underline.
_LEADING = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")


def _escape_underscore(text: str, index: int) -> bool:
    """`_` opens or closes emphasis unless it stands between two letters or digits (intraword:
    `base_conversion` is safe as it is)."""
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return not (before.isalnum() and after.isalnum())


def escape_text(value: str | None) -> str:
    """Return ``value`` as Markdown that renders as exactly these characters, on one line.

    Each run of control characters (newline, CR, tab, ...) becomes one space. A backslash goes
    before each character that would start Markdown syntax: ``\\ ` * [ ] < | ~ $`` anywhere, ``_``
    unless it stands inside a word, ``&`` before an entity, and a leading ``# > + - =`` or ``1.``.
    Everything else stays as written. ``None`` -> ``""``.
    """
    if value is None:
        return ""
    text = _CONTROL_RUN.sub(" ", str(value))
    escaped = []
    for index, character in enumerate(text):
        if character in _ALWAYS or (character == "_" and _escape_underscore(text, index)):
            escaped.append("\\" + character)
        else:
            escaped.append(character)
    text = _ENTITY.sub("\\\\&", "".join(escaped))
    match = _LEADING.match(text)
    if match:
        # `1.` or `1)` is a list item only with its dot or parenthesis: escape that, not the digits
        text = text[: match.end()] + "\\" + text[match.end() :] if match.group(0)[0].isdigit() else "\\" + text
    return text


def escape_code(value: str | None, *, table: bool = True) -> str:
    """Return a complete inline code span (backticks included) showing ``value`` literally.

    Fence: one backtick longer than the longest inner run; content starting/ending with a backtick (or
    starting *and* ending with a space) is padded with a space each side, which renderers strip again.
    Control-character runs -> one space. ``table=True`` (default) writes ``|`` as ``\\|``: GitHub splits
    rows on pipes even in code spans, then drops the backslash. Outside tables pass ``table=False``
    (the backslash would show there). ``None``/``""`` -> a span holding one space.
    """
    text = _CONTROL_RUN.sub(" ", "" if value is None else str(value))
    if table:
        text = text.replace("|", "\\|")
    if not text:
        return "` `"
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    if text[0] == "`" or text[-1] == "`" or (text[0] == text[-1] == " " and text.strip(" ")):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def slugify(name: str | None) -> str:
    """Lowercase ASCII slug for a folder name: NFKD-normalise, drop non-ASCII, lowercase, replace each run
    of characters outside ``[a-z0-9]`` with ``-``, strip ``-`` at both ends, cap at 80 chars.
    Empty result -> ``"collection"``. Never ``.``/``..``, never contains ``/`` or ``\\``."""
    folded = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub("[^a-z0-9]+", "-", folded).strip("-")[:MAX_SLUG].rstrip("-")
    return slug or _FALLBACK_SLUG


def _slug_at(name: str, level: int) -> str:
    size = _HASH_LENGTHS[level]
    if not size:
        return slugify(name)
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:size]
    return f"{slugify(name)[: MAX_SLUG - size - 1].rstrip('-')}-{digest}"


def unique_slugs(names: Iterable[str]) -> dict[str, str]:
    """Map each distinct name to a distinct slug; the result depends only on the *set* of names.

    Names are processed sorted. When several names share a slug, every one of them gets
    ``-<first 8 hex of sha256(name, UTF-8)>`` appended (the slug part is shortened so the whole stays
    within 80 chars). Should a suffixed slug still clash (e.g. with a name that literally is
    ``a-b-1a2b3c4d``), the names involved move on to 16 and then 64 hex chars.
    """
    ordered = sorted(set(names))
    level = dict.fromkeys(ordered, 0)
    while True:
        slugs = {name: _slug_at(name, level[name]) for name in ordered}
        counts = Counter(slugs.values())
        clashing = [name for name in ordered if counts[slugs[name]] > 1]
        if not clashing:
            return slugs
        for name in clashing:
            if level[name] == len(_HASH_LENGTHS) - 1:
                raise ValueError(f"cannot make a unique slug for {name!r}")
            level[name] += 1
