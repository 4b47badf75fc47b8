"""The Markdown report end to end: golden files over the faulty fixture, hostile names, edge-case
collections, determinism and the one-line errors of `runlens report`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE
from runlens.report.render import render_reports
from tests.support.golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from tests.support.pipeline import DATABASE, PROJECT, REPO, build, runlens_command
from tests.support.prebuilt import Prebuilds, prebuilt

GOLDEN = GOLDEN_ROOT / "faulty"


def test_faulty_fixture_matches_golden_files(faulty_build, tmp_path):
    render_reports(faulty_build.database, tmp_path)
    assert_matches_golden(tmp_path, GOLDEN, MISMATCHES / "faulty", {str(faulty_build.raw): "<raw folder>"})


def test_rendering_twice_gives_identical_bytes(faulty_db_path, tmp_path):
    render_reports(faulty_db_path, tmp_path / "first")
    render_reports(faulty_db_path, tmp_path / "second")
    first = {p.relative_to(tmp_path / "first"): p.read_bytes() for p in (tmp_path / "first").rglob("*") if p.is_file()}
    second = {
        p.relative_to(tmp_path / "second"): p.read_bytes() for p in (tmp_path / "second").rglob("*") if p.is_file()
    }
    assert first == second and any(str(name).endswith(".png") for name in first)


def test_golden_figures_are_the_hand_computed_ones():
    """The gold profile quotes the figures worked out by hand in tests/fixtures/faulty/expected.json:
    alpha's means in minutes (2400 s, 2550 s), its speedup against base (0.75: 1.33x slower), its
    one restart's downtime (900 s, from the superseded run_end to the restart) as goodput's down, and
    the data quality of its own files only: the five under alpha/ and zz-dupes.jsonl, which holds
    a duplicate of an alpha line; base/runs.jsonl's rejects are base's."""
    expected = json.loads((REPO / "tests" / "fixtures" / "faulty" / "expected.json").read_text())
    alpha = expected["collections"]["fixture/alpha"]
    page = (GOLDEN / "fixture-alpha" / "profile.md").read_text(encoding="utf-8")
    analysed, excluded = alpha["runs_analyzed"], alpha["runs_excluded"]
    assert f"{analysed} runs analyzed, {excluded} excluded" in page
    assert "this collection's rows have `collection = 'fixture/alpha'`" in page
    mean, median = alpha["mean_wall_seconds"] / 60, alpha["median_wall_seconds"] / 60
    assert f"| classify | 4 | 2 | {mean:.1f} min | {median:.1f} min |" in page
    assert f"{1 / expected['comparison']['speedup']:.2f}x slower ({mean:.1f} min against 30.0 min" in page
    assert f"mean tail share {alpha['mean_tail_share'] * 100:.1f}% (the mean of the analyzed runs' shares" in page
    # the one restart's downtime, the same figure in goodput's down (def_downtime): 900 s
    assert f"({expected['runs']['alpha-resumed']['downtime_seconds'] / 60:.1f} min down," in page
    assert "`eval.num_samples`" in page and "The two were measured differently" in page
    files = [name for name in expected["files"] if name.startswith("alpha/")] + ["zz-dupes.jsonl"]
    totals = {key: sum(expected["files"][name][key] for name in files) for key in ("lines_read", "rejected")}
    assert f"Over the {len(files)} log files that hold this collection's runs" in page
    assert f"- lines read: {totals['lines_read']} (plus 4 blank)" in page
    assert f"- rejected lines: {totals['rejected']} (" in page
    base = (GOLDEN / "fixture-base" / "profile.md").read_text(encoding="utf-8")
    base_rejected = expected["files"]["base/runs.jsonl"]["rejected"]
    assert "Over the 1 log file that holds this collection's runs" in base
    assert f"- rejected lines: {base_rejected} (" in base


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
    (raw / COLLECTIONS_FILE).write_text(seed, encoding="utf-8")
    build(PROJECT, raw, root / "db" / DATABASE)
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


RENDERER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tokens_of(page: str):
    """Every token a CommonMark renderer (with GitHub's tables and strikethrough) makes of a page,
    inline ones included."""
    for token in RENDERER.parse(page):
        yield token
        yield from token.children or []


def test_hostile_names_neither_break_tables_nor_inject_markup(hostile_reports):
    out, _ = hostile_reports
    for path in out.rglob("*.md"):
        page = path.read_text(encoding="utf-8")
        for table in re.split(r"\n\n", page):
            rows = table_rows(table)
            if rows:
                assert len({cells(row) for row in rows}) == 1, table
        found = list(tokens_of(page))
        assert not [token for token in found if token.type in ("html_inline", "html_block")], path
        hrefs = [token.attrGet("href") for token in found if token.type == "link_open"]
        # the only links: the index's to the pages, and none of the names' or the seed's unsafe ones
        assert all(href.endswith("/profile.md") for href in hrefs), hrefs
        headings = [token for token in found if token.type == "heading_open"]
        assert all(token.tag in ("h1", "h2") for token in headings)
        assert not [token for token in found if token.type in ("em_open", "s_open")]  # no page uses either


def test_unsafe_seed_links_are_shown_as_text(hostile_reports):
    out, _ = hostile_reports
    page = (out / "x-y-z-b-bold-b-link-http-evil-example" / "profile.md").read_text(encoding="utf-8")
    assert "Back to design: `javascript:alert(1)`" in page
    assert "](http://ok.example/a)b)" not in page


def test_collection_with_only_excluded_runs(hostile_reports):
    out, _ = hostile_reports
    page = (out / ONLY_FAILED / "profile.md").read_text(encoding="utf-8")
    assert "\n0 runs analyzed, 1 excluded." in page
    assert "- No run of this collection is complete, so there are no wall-time figures yet." in page
    assert "- runs excluded from the figures: 1 (1 failed: failed-run)" in page
    assert not (out / ONLY_FAILED / "mean_wall_by_task.png").exists()


def run_script(*args: str) -> subprocess.CompletedProcess:
    return runlens_command("report", *args)


def test_missing_database_is_one_line(tmp_path):
    database = tmp_path / "missing.duckdb"
    result = run_script("--db", str(database), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"runlens: no database at {database}: build it first: `runlens build --logs <folder> --db {database}`, "
        "or pass another --db"
    ]


def test_unbuilt_database_is_one_line(tmp_path):
    import duckdb

    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    result = run_script("--db", str(tmp_path / "empty.duckdb"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "has no runlens marts" in result.stderr and "build them first: `runlens build --logs" in result.stderr


def test_unknown_collection_is_one_line(faulty_db_path, tmp_path):
    result = run_script("--db", str(faulty_db_path), "--out", str(tmp_path / "out"), "--collection", "nope")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "no collection named 'nope'" in result.stderr and "fixture/alpha" in result.stderr
    assert not (tmp_path / "out").exists()


def test_one_collection_writes_only_its_profile(faulty_db_path, tmp_path):
    result = run_script("--db", str(faulty_db_path), "--out", str(tmp_path), "--collection", "fixture/base")
    assert result.returncode == 0, result.stderr
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.md")) == ["fixture-base/profile.md"]
