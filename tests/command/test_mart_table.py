"""docs/marts.md's table of marts (the README's until the README became a front door) is the one
scripts/mart_table.py writes from the marts' YAML: the check fails when they disagree, and the table
names every mart the project builds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from scripts import mart_table

REPO = Path(__file__).resolve().parents[2]

PAGE = (REPO / "docs" / "marts.md").read_text(encoding="utf-8")


def table_rows(page: str) -> list[tuple[str, str, str]]:
    inside = page.split(mart_table.BEGIN, 1)[1].split(mart_table.END, 1)[0]
    return re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", inside, re.M)


def test_the_table_is_the_one_the_yaml_gives():
    assert mart_table.main(["--check"]) == 0, "run `python scripts/mart_table.py` and commit docs/marts.md"


def test_the_table_names_every_mart_the_project_builds_once():
    """Against the SQL files on disk, not the YAML the table is written from."""
    built = sorted(path.stem for path in (REPO / "models" / "marts").rglob("*.sql"))
    names = [name for name, _, _ in table_rows(PAGE)]
    assert sorted(names) == built
    # 63, 7 of sections on the timeline (issue 49), 9 of utilization (issue 45), 11 of profiled steps (issue 46),
    # 2 of ETA calibration (issue 47), 2 of utilization by task (kind of interval, part of the sessions)
    assert len(names) == len(set(names)) == 97


def test_a_row_gives_the_grain_its_description_states_and_its_one_line():
    rows = {name: (grain, line) for name, grain, line in table_rows(PAGE)}
    assert rows["fct_run_epochs"][0] == "one row per run and epoch_index"
    assert rows["agg_collection_span"][0] == "one row per collection with a started run"
    assert rows["fct_run_profile_sections"][1].startswith("Each run's profiler sections")
    # each mart sits under the heading of its folder
    live = PAGE.split("**Live sweeps", 1)[1].split("\n", 1)[1].split("\n**", 1)[0]
    assert "`fct_run_live_status`" in live and "`fct_runs`" not in live


def test_a_page_that_differs_fails_the_check(tmp_path, monkeypatch, capsys):
    stale = PAGE.replace("| `fct_run_live_status` |", "| `fct_live_run` |")
    assert stale != PAGE
    (tmp_path / "marts.md").write_text(stale, encoding="utf-8")
    monkeypatch.setattr(mart_table, "PAGE", tmp_path / "marts.md")
    assert mart_table.main(["--check"]) == 1
    assert "run `python scripts/mart_table.py`" in capsys.readouterr().err
    assert mart_table.main([]) == 0  # writes it again
    assert (tmp_path / "marts.md").read_text(encoding="utf-8") == PAGE


def write_marts(root: Path, models: list[dict]) -> Path:
    (root / "live").mkdir(parents=True)
    (root / "live" / "_live__models.yml").write_text(yaml.safe_dump({"version": 2, "models": models}))
    return root


def test_a_mart_without_its_one_line_or_grain_is_named(tmp_path):
    no_summary = write_marts(tmp_path / "a", [{"name": "m", "description": "M. Grain: one row per m."}])
    with pytest.raises(mart_table.MissingSummary, match="mart m has no config.meta.summary"):
        mart_table.mart_table(no_summary)
    no_grain = write_marts(tmp_path / "b", [{"name": "n", "description": "N.", "config": {"meta": {"summary": "x"}}}])
    with pytest.raises(mart_table.MissingSummary, match="mart n: its description states no"):
        mart_table.mart_table(no_grain)
    fine = write_marts(
        tmp_path / "c",
        [{"name": "n", "description": "N. Grain: one row per n.", "config": {"meta": {"summary": "a | b"}}}],
    )
    assert "| `n` | one row per n | a \\| b |" in mart_table.mart_table(fine)
