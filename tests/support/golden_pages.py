"""Rendered Markdown pages against their golden copies (tests/golden/<name>/): any page that
differs is saved under tests/golden/_mismatches/ for review, and the check fails naming them. Each
rendered page is also held to one figure per name (page_figures.py)."""

from __future__ import annotations

from pathlib import Path

from tests.support.page_figures import clashes
from tests.support.pipeline import REPO

GOLDEN_ROOT = REPO / "tests" / "golden"
MISMATCHES = GOLDEN_ROOT / "_mismatches"


def markdown_files(folder: Path, placeholders: dict[str, str] | None = None) -> dict[str, str]:
    """The folder's pages by relative path, each text with `placeholders` put in (a scratch folder's
    path, which differs from run to run, becomes a fixed word)."""
    pages = {}
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for value, placeholder in (placeholders or {}).items():
            text = text.replace(value, placeholder)
        pages[str(path.relative_to(folder))] = text
    return pages


def assert_matches_golden(
    rendered: Path, golden: Path, mismatches: Path, placeholders: dict[str, str] | None = None
) -> None:
    actual, expected = markdown_files(rendered, placeholders), markdown_files(golden)
    differing = sorted(name for name in actual.keys() | expected.keys() if actual.get(name) != expected.get(name))
    for name in differing:  # keep the new output beside the gold file for review
        target = mismatches / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(actual.get(name, ""), encoding="utf-8")
    assert differing == [], f"rendered pages differ from {golden}; new output saved under {mismatches}"
    named_twice = {name: found for name, text in actual.items() if (found := clashes(text))}
    assert named_twice == {}, f"rendered pages give one name several figures: {named_twice}"
