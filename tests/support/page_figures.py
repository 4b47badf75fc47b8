"""The figures a rendered page gives under a name, so that a test can hold the page to one figure
per name (issue 49, point 4): "every page figure with a given name equals every other figure with
that name on that page".

A name is one of NAMES (each with the spellings the pages use for it). A figure is read under a
name in these forms only, nothing else:

- a table column headed by the name: each cell of it, for the row's first cell (a task, a
  collection), so a task's figure is held against the same task's figures only;
- a table row labelled by the name (its first cell, or the part of it before a closing
  parenthesis that explains it): the cells under the columns MEASURE_COLUMNS knows (a share, a
  total, a mean per run), for the page as a whole;
- in a sentence, for the page as a whole: `name: figure`, `name figure` (the name at a phrase's
  start: after punctuation or `the`), `figure name` (the name closing the phrase, or any name
  that is a unit, such as `3.60 GPU-hours`), and `figure of name`.

Where one name is part of a longer one (`final tail` in `mean final tail`), the longer one is read
(leftmost, longest): the longer one is a name of its own. A figure is a number and its unit
(`s`, `min`, `h`, `d` as seconds; `%` as a share; none as a plain number, such as GPU-hours); what
it measures is the share, the total, or the mean per run (a sentence's figure followed by "on
average" or "per run", and any duration under a name that says it is a mean). Two figures with
one name, measure and subject are equal when the ranges their printed digits allow overlap
(`328 min` and `5.46 h` are equal, `46.0 h` and `45.7 h` are not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# the names the pages hold to one figure each, with the spellings they are given
NAMES: dict[str, tuple[str, ...]] = {
    "down": ("down", "downtime", "restart downtime"),
    "unattributed": ("unattributed",),
    "run time": ("run time",),
    "active time": ("active time",),
    "final tail": ("final tail",),
    "mean final tail": ("mean final tail",),
    "mean tail share": ("mean tail share",),
    "goodput": ("goodput",),
    "GPU-hours": ("gpu-hours",),
    "active GPU-hours": ("active gpu-hours",),
    "GPU-hours held": ("gpu-hours held",),
    "measured GPU-hours": ("measured gpu-hours",),
    "idle GPU-hours": ("idle gpu-hours",),
    "redone": ("redone",),
    "start-up": ("start-up",),
    "evaluation": ("evaluation",),
    "span": ("span",),
}
# what a column of a table whose rows are labelled by names measures
MEASURE_COLUMNS = {
    "share here": "share",
    "share of profiled wall time": "share",
    "share of the summed wall time": "share",
    "total": "total",
    "per run here": "per run",
    "mean per run": "per run",
    "this collection": "per run",  # the parts of the difference from the baseline: means per run
}
# names that are units: a figure before one is the name's even when the phrase goes on
UNIT_NAMES = {"GPU-hours", "active GPU-hours", "GPU-hours held", "measured GPU-hours", "idle GPU-hours"}
UNIT_SECONDS = {"s": 1, "min": 60, "h": 3600, "d": 86400}
NUMBER = r"\d[\d,]*(?:\.\d+)?"
FIGURE = rf"(?P<number>{NUMBER})(?:\s?(?P<unit>%|(?:min|s|h|d)\b)|(?![\w.%]))"
SPELLINGS = sorted(
    ((spelling, name) for name, spellings in NAMES.items() for spelling in spellings),
    key=lambda pair: -len(pair[0]),
)
NAME_PATTERN = re.compile(
    r"(?<![\w-])(?P<spelling>" + "|".join(re.escape(spelling) for spelling, _ in SPELLINGS) + r")(?![\w-])",
    re.IGNORECASE,
)
NAME_OF = {spelling: name for spelling, name in SPELLINGS}


@dataclass(frozen=True)
class Figure:
    name: str
    measure: str  # "share", "total", "per run" or "number"
    subject: str  # "" for the page as a whole, else the row's first cell
    low: float
    high: float
    text: str  # as printed, with where it was read
    where: str

    def equals(self, other: Figure) -> bool:
        return self.low <= other.high + 1e-9 and other.low <= self.high + 1e-9


def figure_value(number: str, unit: str | None) -> tuple[str, float, float]:
    """(kind, low, high): the range the printed digits allow, in seconds for a duration."""
    digits = number.replace(",", "")
    step = 0.5 * 10 ** -(len(digits.split(".")[1]) if "." in digits else 0)
    value = float(digits)
    if unit in UNIT_SECONDS:
        scale = UNIT_SECONDS[unit]
        return "duration", (value - step) * scale, (value + step) * scale
    return ("share" if unit == "%" else "number"), value - step, value + step


def measure_of(name: str, kind: str, otherwise: str) -> str:
    if kind == "share":
        return "share"
    if kind == "number":
        return "number"
    return "per run" if name.startswith("mean ") else otherwise


def plain(cell: str) -> str:
    """A cell or phrase as a name would be compared: no emphasis, code marks or link, lowercase."""
    cell = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
    return re.sub(r"\s+", " ", cell.replace("`", "").replace("*", "")).strip().lower()


def cell_figure(cell: str):
    match = re.search(FIGURE, cell.replace("**", ""))
    if not match or re.fullmatch(r"[\d\-: ]+UTC.*", cell.strip()):
        return None
    return match


def table_rows(lines: list[str], start: int) -> tuple[list[str], list[list[str]], int]:
    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]

    header, rows, index = cells(lines[start]), [], start + 2
    while index < len(lines) and lines[index].startswith("|"):
        rows.append(cells(lines[index]))
        index += 1
    return header, rows, index


def table_figures(header: list[str], rows: list[list[str]], where: str) -> list[Figure]:
    figures = []
    names = [NAME_OF.get(plain(cell)) for cell in header]
    for row in rows:
        if not row:
            continue
        subject = plain(row[0])
        label = NAME_OF.get(subject) or NAME_OF.get(re.sub(r"\s*\([^()]*\)$", "", subject))
        for column, cell in enumerate(row[1:], start=1):
            if column >= len(header):
                break
            match = cell_figure(cell)
            if not match:
                continue
            kind, low, high = figure_value(match["number"], match["unit"])
            if names[column]:
                measure = measure_of(names[column], kind, "total")
                figures.append(Figure(names[column], measure, subject, low, high, cell, where))
            if label and plain(header[column]) in MEASURE_COLUMNS:
                measure = measure_of(label, kind, MEASURE_COLUMNS[plain(header[column])])
                figures.append(Figure(label, measure, "", low, high, cell, where))
    return figures


def sentence_figures(line: str, where: str) -> list[Figure]:
    text = line.replace("**", "").replace("`", "")
    figures = []
    for match in NAME_PATTERN.finditer(text):
        name = NAME_OF[match["spelling"].lower()]
        before, after = text[: match.start()], text[match.end() :]
        found = None
        # name: figure / name figure, the name opening a phrase
        opening = re.search(r"(?:^|[-,;:(.]\s*|\bthe\s|\band\s|^\W*)$", before, re.IGNORECASE)
        following = re.match(rf":?\s+(?P<shown>(?:at most\s+|at least\s+)?{FIGURE})", after)
        if opening and following:
            found = following
            rest = after[following.end() :]
        else:
            # figure name (the name closing a phrase) / figure of name
            preceding = re.search(rf"(?P<shown>{FIGURE})\s+(?P<of>of\s+(?:the\s+)?)?$", before)
            closes = re.match(r"\s*(?:$|[,;.:)])", after)
            if preceding and (preceding["of"] or closes or name in UNIT_NAMES):
                found = preceding
                rest = after
        if not found:
            continue
        kind, low, high = figure_value(found["number"], found["unit"])
        per_run = re.match(r"\s*(?:on average|per run)\b", rest)
        measure = measure_of(name, kind, "per run" if per_run else "total")
        figures.append(Figure(name, measure, "", low, high, found["shown"], where))
    return figures


def page_figures(page: str) -> list[Figure]:
    """Every figure the page gives under one of NAMES, in page order."""
    lines, figures, index = page.splitlines(), [], 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("|") and index + 1 < len(lines) and re.match(r"\|\s*:?-", lines[index + 1]):
            header, rows, index = table_rows(lines, index)
            figures += table_figures(header, rows, f"the table headed {' | '.join(header)}")
            continue
        if line.strip() and not line.startswith(("#", "![")):
            figures += sentence_figures(line, f"line {index + 1}: {line[:80]}")
        index += 1
    return figures


def clashes(page: str) -> list[str]:
    """One line per name (with its measure and subject) that the page gives unequal figures."""
    groups: dict[tuple[str, str, str], list[Figure]] = {}
    for figure in page_figures(page):
        groups.setdefault((figure.name, figure.measure, figure.subject), []).append(figure)
    found = []
    for (name, measure, subject), figures in groups.items():
        if any(not one.equals(other) for one in figures for other in figures):
            given = "; ".join(f"{figure.text!r} in {figure.where}" for figure in figures)
            found.append(f"{name} ({measure}{', ' + subject if subject else ''}): {given}")
    return found
