"""Rendered Markdown pages against their golden copies (tests/golden/<name>/): any page that
differs is saved under tests/golden/_mismatches/ for review, and the check fails naming them."""

from __future__ import annotations

from pathlib import Path

from pipeline import REPO

GOLDEN_ROOT = REPO / "tests" / "golden"
MISMATCHES = GOLDEN_ROOT / "_mismatches"


def markdown_files(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): path.read_text(encoding="utf-8") for path in sorted(folder.rglob("*.md"))}


def assert_matches_golden(rendered: Path, golden: Path, mismatches: Path) -> None:
    actual, expected = markdown_files(rendered), markdown_files(golden)
    differing = sorted(name for name in actual.keys() | expected.keys() if actual.get(name) != expected.get(name))
    for name in differing:  # keep the new output beside the gold file for review
        target = mismatches / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(actual.get(name, ""), encoding="utf-8")
    assert differing == [], f"rendered pages differ from {golden}; new output saved under {mismatches}"
