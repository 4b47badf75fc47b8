"""docs/pages.md lists the charts as the report draws them: its table names every chart file the
report code can write beside a profile, and nothing else, each under the section of the page
that shows it (the `## ` heading of profile.md.j2 above the chart's image). A chart drawn once per
task is named with `<task>` where the task's slug goes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REPORT = REPO / "runlens" / "report"
PAGES = (REPO / "docs" / "pages.md").read_text(encoding="utf-8")
TEMPLATE = (REPORT / "templates" / "profile.md.j2").read_text(encoding="utf-8")


def documented() -> dict[str, str]:
    """The docs' table of charts: file name -> section."""
    table = PAGES.split("<!-- charts:", 1)[1].split("<!-- end charts -->", 1)[0]
    rows = re.findall(r"^\| `([\w.<>]+)` \| ([^|]+?) \| [^|]+ \|$", table, re.M)
    names = [name for name, _ in rows]
    assert len(names) == len(set(names)), "a chart is listed twice"
    return dict(rows)


def png_literals() -> set[str]:
    """Every `*.png` string in the report's code: any file name it could write."""
    names = set()
    for path in REPORT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(".png"):
                names.add(node.value)
    return names


def drawn_as() -> dict[str, str]:
    """render.py's charts(): the template variable each chart file is handed to the page as."""
    source = (REPORT / "render.py").read_text(encoding="utf-8")
    constants = dict(re.findall(r'^(\w+_NAME) = "([\w.<>]+\.png)"$', source, re.M))
    assigned = re.findall(r'written\["(\w+)"\](?:\[[\w.]+\])? = (\w+_NAME)', source)
    return {constants[constant]: key for key, constant in assigned}


def test_the_list_names_every_chart_the_code_can_write_and_no_other():
    names = png_literals()
    # ten charts so far: by task (wall time, goodput), epochs, the baseline's windows, the
    # timeline, the ranks' arrivals, utilization by kind, over the longest run and of each task,
    # inside a step
    assert len(names) == 10
    assert set(documented()) == names


def test_every_chart_the_code_writes_is_handed_to_the_page():
    assert set(drawn_as()) == png_literals()


def test_each_chart_is_listed_under_the_section_that_shows_it():
    for name, key in drawn_as().items():
        image = re.search(r"\]\(\{\{ " + key + r"(?:\[[\w.]+\])? \}\}\)", TEMPLATE)
        assert image, f"profile.md.j2 shows no {key}"
        headings = re.findall(r"^## (.+)$", TEMPLATE[: image.start()], re.M)
        assert documented()[name] == headings[-1], name
