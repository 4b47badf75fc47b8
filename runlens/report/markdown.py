"""Make names and figures safe and uniform in Markdown reports (standard library only).

Names (tasks, collections, config keys) come from users' logs and are hostile until escaped. Callers
escape each *raw* name exactly once, where it enters Markdown: escaping is not idempotent (a second
pass makes the backslashes and entities visible), so never escape text that is already Markdown.

Figures (``fmt_*``) arrive already in the display unit; ``None``, NaN and infinities print ``n/a``.
The rounding rule is Python's ``f"{float(x):.Nf}"`` and nothing else: the exact binary value is
correctly rounded (exact ties go to even) with no ``round()``/``Decimal`` pre-pass, so ``1.005``
(binary 1.00499...) prints ``1.00``; ``Decimal`` inputs print like floats. A figure that rounds to
zero never carries a sign: ``-0.001`` -> ``0.00h``.
"""

from __future__ import annotations

import hashlib
import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable
from datetime import datetime

MAX_SLUG = 80
_FALLBACK_SLUG = "collection"
_HASH_LENGTHS = (0, 8, 16, 64)  # suffix lengths tried in turn; 8 is the normal case
# C0/C1 controls (tab, CR, LF, NEL, ESC, DEL, ...) and the Unicode line/paragraph separators.
_CONTROL_RUN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Every ASCII punctuation character is backslash-escaped (CommonMark allows this for all of them), a superset of
# the core syntax characters that also disarms GitHub extras: $math$, http:// autolinks, setext === underlines.
_TEXT_ESCAPES = {ord(c): _ENTITIES.get(c, "\\" + c) for c in string.punctuation}


def escape_text(value: str | None) -> str:
    """Return ``value`` as Markdown that renders as exactly these characters, on one line.

    Each run of control characters (newline, CR, tab, ...) becomes one space; ``< > &`` become
    ``&lt; &gt; &amp;``; every other ASCII punctuation character gets a backslash, so no emphasis,
    link, heading, list, HTML, entity or table pipe survives. ``None`` -> ``""``.
    """
    if value is None:
        return ""
    return _CONTROL_RUN.sub(" ", str(value)).translate(_TEXT_ESCAPES)


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


def _fmt(value: float | None, spec: str, unit: str) -> str:
    if value is None:
        return "n/a"
    number = float(value)
    if not math.isfinite(number):
        return "n/a"
    text = format(number, spec)
    if text[0] in "+-" and not any(digit in text for digit in "123456789"):
        text = text[1:]  # -0.00 / +0.00 -> 0.00
    return text + unit


def fmt_hours(hours: float | None) -> str:
    """``1.2345`` -> ``"1.23h"`` (2 decimals)."""
    return _fmt(hours, ".2f", "h")


def fmt_minutes(minutes: float | None) -> str:
    """``13.58`` -> ``"13.6 min"`` (1 decimal)."""
    return _fmt(minutes, ".1f", " min")


def fmt_percent(percent: float | None) -> str:
    """``11.8123`` (already a percentage) -> ``"11.81%"`` (2 decimals)."""
    return _fmt(percent, ".2f", "%")


def fmt_ratio(ratio: float | None) -> str:
    """``8.31`` -> ``"8.3x"`` (1 decimal)."""
    return _fmt(ratio, ".1f", "x")


def fmt_ratio_2(ratio: float | None) -> str:
    """``0.1176`` -> ``"0.12x"`` (2 decimals, for ratios near or below 1)."""
    return _fmt(ratio, ".2f", "x")


def fmt_signed_hours(hours: float | None) -> str:
    """``-9.03`` -> ``"-9.03h"``, ``0.5`` -> ``"+0.50h"``; anything that rounds to zero -> ``"0.00h"``."""
    return _fmt(hours, "+.2f", "h")


def fmt_signed_minutes(minutes: float | None) -> str:
    """``-40.04`` -> ``"-40.0 min"``, ``5`` -> ``"+5.0 min"``; anything that rounds to zero -> ``"0.0 min"``."""
    return _fmt(minutes, "+.1f", " min")


def fmt_zscore(score: float | None) -> str:
    """``24.478`` -> ``"24.5"`` (1 decimal, no unit)."""
    return _fmt(score, ".1f", "")


def fmt_signed_seconds(seconds: float | None) -> str:
    """``240.4`` -> ``"+240 s"``, ``-3`` -> ``"-3 s"`` (no decimals)."""
    return _fmt(seconds, "+.0f", " s")


def fmt_count(count: int | float | None) -> str:
    """``1234`` -> ``"1,234"``. Integers print exactly; other numbers with ``f"{float(x):,.0f}"``."""
    if isinstance(count, int):
        return f"{count:,}"
    return _fmt(count, ",.0f", "")


def fmt_time(instant: datetime | None) -> str:
    """A UTC timestamp to the minute: ``2025-03-10 13:08 UTC`` (``n/a`` when unknown)."""
    return "n/a" if instant is None else instant.strftime("%Y-%m-%d %H:%M UTC")


def fmt_decimal(value: float | None) -> str:
    """``1.0928`` -> ``"1.09"`` (2 decimals, no unit)."""
    return _fmt(value, ".2f", "")
