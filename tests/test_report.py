"""The Markdown report end to end: golden files over the faulty fixture, hostile names, edge-case
collections, determinism and the one-line errors of `runlens report`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from pipeline import DATABASE, REPO, Project, build, runlens_command
from prebuilt import Prebuilds, prebuilt

from runlens.report.render import render_reports

GOLDEN = GOLDEN_ROOT / "faulty"


def test_faulty_fixture_matches_golden_files(faulty_db_path, tmp_path):
    render_reports(faulty_db_path, tmp_path)
    assert_matches_golden(tmp_path, GOLDEN, MISMATCHES)


def test_rendering_twice_gives_identical_bytes(faulty_db_path, tmp_path):
    render_reports(faulty_db_path, tmp_path / "first")
    render_reports(faulty_db_path, tmp_path / "second")
    first = {p.relative_to(tmp_path / "first"): p.read_bytes() for p in (tmp_path / "first").rglob("*") if p.is_file()}
    second = {
        p.relative_to(tmp_path / "second"): p.read_bytes() for p in (tmp_path / "second").rglob("*") if p.is_file()
    }
    assert first == second and any(str(name).endswith(".png") for name in first)


def test_golden_figures_are_the_hand_computed_ones():
    """The gold profile quotes the figures worked out by hand in tests/fixtures/faulty/expected.json."""
    expected = json.loads((REPO / "tests" / "fixtures" / "faulty" / "expected.json").read_text())
    alpha = expected["collections"]["fixture/alpha"]
    page = (GOLDEN / "fixture-alpha" / "profile.md").read_text(encoding="utf-8")
    assert f"- runs analysed: {alpha['runs_analyzed']}\n" in page
    assert f"- mean wall time from run_start to run_end: {alpha['mean_wall_seconds'] / 3600:.2f}h\n" in page
    assert f"- median wall time: {alpha['median_wall_seconds'] / 3600:.2f}h\n" in page
    assert f"- mean final-tail share of wall time: {alpha['mean_tail_share'] * 100:.2f}%\n" in page
    assert f"- ratio (baseline mean / this mean): {expected['comparison']['speedup']:.1f}x\n" in page
    assert "`eval.num_samples`" in page and "**Warning: the measurements differ in kind.**" in page


HOSTILE_COLLECTION = "x|y `z` <b>bold</b> [link](http://evil.example)"
TRAVERSAL_COLLECTION = "../../etc"
ONLY_FAILED = "only-failed"
HOSTILE_TASK = "t|a`s`k <script>alert(1)</script> # *x*"


def event(run_id, kind, minute, **fields):
    return json.dumps({"run_id": run_id, "event": kind, "ts": f"2025-01-01T00:{minute:02d}:00Z", **fields})


@prebuilt()
def hostile_build(builds: Prebuilds) -> Path:
    """The marts over logs and a collections seed with hostile names."""
    root = builds.mktemp("hostile")
    raw = root / "raw"
    raw.mkdir()
    lines = []
    for number, (collection, task) in enumerate(
        [(HOSTILE_COLLECTION, HOSTILE_TASK), (HOSTILE_COLLECTION, "plain"), (TRAVERSAL_COLLECTION, "../../passwd")]
    ):
        run = f"run-{number}"
        lines += [
            event(run, "run_start", 0, collection=collection, task=task, config={"k|`": "v`|`"}),
            event(run, "checkpoint", 10 + number, step=100),
            event(run, "epoch_end", 20 + number),
            event(run, "run_end", 30 + number),
        ]
    lines += [event("failed-run", "run_start", 0, collection=ONLY_FAILED, task="t")]
    lines += [event("failed-run", "run_end", 5, status="oom")]
    (raw / "logs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    seed = (
        "collection,title,baseline_collection,design_url,results_url\n"
        f'"{HOSTILE_COLLECTION}","{HOSTILE_COLLECTION}","{TRAVERSAL_COLLECTION}",javascript:alert(1),'
        "http://ok.example/a)b\n"
    )
    build(Project(seed), raw, root / "db" / DATABASE)
    return root / "db" / DATABASE


@pytest.fixture(scope="module")
def hostile_reports(hostile_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile_reports") / "out"
    written = render_reports(hostile_build, out)
    return out, written


def without_code_spans(page: str) -> str:
    """The page with inline code removed: inside a code span, markup is shown literally."""
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", page)


def table_rows(page: str) -> list[str]:
    return [line for line in page.splitlines() if line.startswith("|")]


def cells(row: str) -> int:
    return len(re.split(r"(?<!\\)\|", row)) - 2


def test_hostile_names_stay_inside_the_output_folder(hostile_reports):
    out, written = hostile_reports
    for path in written:
        assert out.resolve() in path.resolve().parents
    assert sorted(p.name for p in out.iterdir()) == [
        "etc",
        "index.md",
        "only-failed",
        "x-y-z-b-bold-b-link-http-evil-example",
    ]


def test_hostile_names_neither_break_tables_nor_inject_markup(hostile_reports):
    out, _ = hostile_reports
    for page in [p.read_text(encoding="utf-8") for p in out.rglob("*.md")]:
        for table in re.split(r"\n\n", page):
            rows = table_rows(table)
            if rows:
                assert len({cells(row) for row in rows}) == 1, table
        prose = without_code_spans(page)
        assert "<b>" not in prose and "<script>" not in prose
        assert "](http://evil" not in prose and "](javascript" not in prose
        assert not re.search(r"^#+ .*\*x\*", page, re.MULTILINE)


def test_unsafe_seed_links_are_shown_as_text(hostile_reports):
    out, _ = hostile_reports
    page = (out / "x-y-z-b-bold-b-link-http-evil-example" / "profile.md").read_text(encoding="utf-8")
    assert "Back to design: `javascript:alert(1)`" in page
    assert "](http://ok.example/a)b)" not in page


def test_collection_with_only_excluded_runs(hostile_reports):
    out, _ = hostile_reports
    page = (out / ONLY_FAILED / "profile.md").read_text(encoding="utf-8")
    assert "- runs analysed: 0\n- runs excluded: 1 (1 failed: failed\\-run)" in page
    assert "no run of this collection is complete" in page
    assert "No run of this collection is complete, so the profile has no statistics." in page
    assert not (out / ONLY_FAILED / "mean_wall_by_task.png").exists()


def run_script(*args: str) -> subprocess.CompletedProcess:
    return runlens_command("report", *args)


def test_missing_database_is_one_line(tmp_path):
    result = run_script("--db", str(tmp_path / "missing.duckdb"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"runlens: no database at {tmp_path / 'missing.duckdb'}: run `make sample` (or `dbt build`) first, or pass --db"
    ]


def test_unbuilt_database_is_one_line(tmp_path):
    import duckdb

    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    result = run_script("--db", str(tmp_path / "empty.duckdb"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "has no runlens marts" in result.stderr and "run `dbt build` first" in result.stderr


def test_unknown_collection_is_one_line(faulty_db_path, tmp_path):
    result = run_script("--db", str(faulty_db_path), "--out", str(tmp_path / "out"), "--collection", "nope")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "no collection named 'nope'" in result.stderr and "fixture/alpha" in result.stderr
    assert not (tmp_path / "out").exists()


def test_one_collection_writes_only_its_profile(faulty_db_path, tmp_path):
    result = run_script("--db", str(faulty_db_path), "--out", str(tmp_path), "--collection", "fixture/base")
    assert result.returncode == 0, result.stderr
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.md")) == ["fixture-base/profile.md"]
