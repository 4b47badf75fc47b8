"""The pages on every shape of logs (issue 21): golden pages for the bundled sample and for the
generated shapes (tests/support/shapes.py), each read by a person before it was committed, and the page
rules checked on each: units that fit, one speedup convention, no abandoned run under "Still
running", positions aligned by label, data quality of the page's own files, and no sample
metadata in a database of other logs. The figures asserted are worked out from the generator's
own numbers (its docstrings), not read off the pages."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from runlens.report.render import render_reports
from tests.support import shapes
from tests.support.golden_pages import GOLDEN_ROOT, MISMATCHES, assert_matches_golden
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt

RAW_PLACEHOLDER = "<raw folder>"


@prebuilt()
def shapes_build(builds: Prebuilds) -> tuple[Path, Path]:
    """The marts over every generated shape, in one raw folder with its own collections file."""
    root = builds.mktemp("shapes")
    raw = shapes.write(root / "raw")
    build(PROJECT, raw, root / "db" / DATABASE)
    return raw, root / "db" / DATABASE


@pytest.fixture(scope="module")
def shape_pages(shapes_build, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("shape_pages")
    render_reports(shapes_build[1], out)
    return out


@pytest.fixture(scope="module")
def sample_pages(sample_build, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sample_pages")
    render_reports(sample_build.database, out)
    return out


def page(folder: Path, name: str) -> str:
    return (folder / name / "profile.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text of a `## heading` section, up to the next heading or the "Not shown" line."""
    start = text.index(f"## {heading}\n")
    rest = text[start + len(heading) + 4 :]
    ends = [index for index in (rest.find("\n## "), rest.find("\nNot shown:")) if index >= 0]
    return rest[: min(ends)] if ends else rest


def table_after(text: str, header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the table whose header row starts with header_start."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_the_shapes_match_their_golden_pages(shapes_build, shape_pages):
    assert_matches_golden(
        shape_pages, GOLDEN_ROOT / "shapes", MISMATCHES / "shapes", {str(shapes_build[0]): RAW_PLACEHOLDER}
    )


def test_the_sample_matches_its_golden_pages(sample_build, sample_pages):
    assert_matches_golden(
        sample_pages, GOLDEN_ROOT / "sample", MISMATCHES / "sample", {str(sample_build.raw): RAW_PLACEHOLDER}
    )


def test_runs_of_a_few_seconds_read_as_on_the_index(shape_pages):
    """quick-1 ran 1.5 + 1.5 + 0.4 s and quick-2 2.2 + 2.2 + 0.4 s (and microseconds between a
    checkpoint and its profile): a mean of 4.10 s. The report's one wall-time unit is minutes, as
    other collections' runs take hours and one is under an hour: 4.1 s is 0.0683 min, at most 3
    decimals, on its page as on the index; never 0.00 h or 0.0 min."""
    text = page(shape_pages, "writer-quick")
    tasks = table_after(text, "| task | runs analyzed")
    assert tasks[0][:4] == ["regression", "2", "0", "0.068 min"]
    index = (shape_pages / "index.md").read_text(encoding="utf-8")
    row = next(line for line in index.splitlines() if "(writer-quick/profile.md)" in line)
    assert "| 0.068 min | 0.068 min |" in row
    for shown in (text, index):
        assert not re.search(r"\b0\.0+ ?(h|min)\b", shown), "a duration of seconds shown as 0 hours or minutes"
    # the sections measured saving (checkpoint_save): the sentence about point-in-time saves goes
    assert "checkpoint_save" in text and "Checkpoint saves are logged as moments" not in text


def test_epochs_that_differ_by_seconds_are_told_apart(shape_pages):
    """epochs-new's five slowest epochs are 92.5, 90.5, 88.5, 88.5 and 88 s (tests/support/shapes.py), its
    first epoch 92.5 s against a later-epoch median of 83 s: in seconds, in one unit per line."""
    text = page(shape_pages, "epochs-new")
    assert (
        "Slowest epochs (mean over the runs that have them): epoch 1 92.5 s; epoch 2 90.5 s; "
        "epoch 3 88.5 s; epoch 4 88.5 s; epoch 5 88.0 s; and 45 more, none longer."
    ) in text
    first = next(line for line in text.splitlines() if line.startswith("- first epoch:"))
    assert "92.5 s" in first and "min" not in first


def test_many_positions_are_summarised_and_aligned_by_label(shapes_build, shape_pages):
    """Fifty epochs on both sides give more interval labels than a table can hold: at most 12
    rows (the labels on both sides that moved most), then "and N more"; every row compares one
    label with the same label."""
    text = page(shape_pages, "epochs-new")
    rows = table_after(text, "| # | interval |")
    assert 0 < len(rows) <= 12
    assert re.search(r"… and \d+ more intervals, each of which moved less\.", text)
    with duckdb.connect(str(shapes_build[1]), read_only=True) as connection:
        labels = {
            collection: {label for (label,) in connection.execute(
                "select distinct label from fct_run_intervals"
                " where collection = ? and is_pre_epoch", [collection]
            ).fetchall()}
            for collection in ("epochs-new", "epochs-old")
        }  # fmt: skip
    for row in rows:
        label = row[1].split("`")[1]
        both = "(one side only)" not in row[1]
        assert both == (label in labels["epochs-new"] and label in labels["epochs-old"]), row


def test_no_abandoned_run_is_still_running(shape_pages):
    """sweep-live: gamma-abandoned has been silent for two days, far past gamma's longest run:
    listed apart, never under "Still running"; the stalled run (40 minutes) is there, first."""
    text = page(shape_pages, "sweep-live")
    still = table_after(section(text, "Still running"), "| run | task | state")
    assert [row[0] for row in still][0] == "`beta-stalled`"
    assert {row[0] for row in still} == {"`beta-stalled`", "`gamma-running`", "`beta-running`", "`alpha-running`"}
    assert "`gamma-abandoned`" in text.split("## Still running")[1].split("Abandoned, counted apart")[1]
    assert "3 runs still running" in text and "1 run abandoned, counted apart" in text


def test_a_sweep_that_ended_last_week_is_not_running(shape_pages):
    """history: its last run died a week before the as-of time (its run_end misspelt `RunEnd`): no
    "Still running" section, the run listed as abandoned, the typo named with its fix."""
    text = page(shape_pages, "history")
    assert "## Still running" not in text
    abandoned = table_after(text, "| run | task | last marker | last heard from")
    assert abandoned[0][0] == "`history-09`" and abandoned[0][4] == "7.00 d"
    assert "event `RunEnd` looks like a misspelt `run_end`" in text
    assert "RUNLENS_EVENT_ALIASES=RunEnd=run_end" in text


def test_a_different_task_mix_compares_matched_tasks(shape_pages):
    """mix-new is 10% faster than mix-old on each of 24 tasks, but ran 6 runs each of the 6
    slowest tasks: raw means 48.975 min (its 54 runs) against 42.25 min (old's 72), slower; at new's
    mix, old would take 54.75 min: 1.12x faster on matched tasks. Each is a tie at the digit shown,
    so the page rounds it half up: 49.0, 42.3, 54.8 min. Worked out: old's task k takes
    600 + 150 k + 60 (the mean of 0, 60, 120) seconds; new's runs of task k take 0.9 x (600 + 150 k
    + 60 (n mod 3)), n = 0.. its runs - 1."""
    old_task = {k: 600 + 150 * k + 60 for k in range(1, 25)}
    new_runs = {k: [0.9 * (600 + 150 * k + 60 * (n % 3)) for n in range(6 if k >= 19 else 1)] for k in range(1, 25)}
    new_mean = sum(sum(runs) for runs in new_runs.values()) / 54
    matched_old = sum(len(new_runs[k]) * old_task[k] for k in old_task) / 54
    old_mean = sum(old_task.values()) / 24
    assert [round(minutes, 9) for minutes in (new_mean / 60, old_mean / 60, matched_old / 60)] == [48.975, 42.25, 54.75]
    text = page(shape_pages, "mix-new")
    answer = section(text, "Where the time goes")
    assert (
        "1.12x faster (49.0 min against 54.8 min mean wall time on the 24 tasks "
        "both ran, at this collection's task mix)"
    ) in answer
    assert "The raw means (49.0 min against 42.3 min, 1.16x slower) mix tasks" in answer
    index = (shape_pages / "index.md").read_text(encoding="utf-8")
    assert "1.12x faster (matched tasks)" in index


SPEEDUP = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)x(?!\w)")
# after a speedup, its word; a multiple of the peers' median (stragglers) or a threshold is no speedup
SPEEDUP_WORDS = (" faster", " slower", " (the same)")
MULTIPLE_CONTEXT = re.compile(
    r"(took \S+ the median of its peers|above \S+\)|over \S+ its peers' median"
    r"|\| \S+x \| \S+ \| `|\| \S+x \| \S+ \| n/a)"  # a straggler's row: its multiple, its z-score, its interval
)


def speedup_misuses(text: str) -> list[str]:
    """Every `<number>x` that is neither a speedup with its word nor a straggler's multiple."""
    allowed = {match.group(0) for match in MULTIPLE_CONTEXT.finditer(text)}
    found = []
    for match in SPEEDUP.finditer(text):
        after = text[match.end() : match.end() + 12]
        if after.startswith(SPEEDUP_WORDS):
            continue
        window = text[max(0, match.start() - 60) : match.end() + 40]
        if any(context in window for context in allowed) or "x the median of their peers" in window:
            continue
        found.append(window)
    return found


@pytest.mark.parametrize("pages", ["shape_pages", "sample_pages"])
def test_one_speedup_convention_on_every_page(pages, request):
    folder = request.getfixturevalue(pages)
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        assert speedup_misuses(text) == [], path
        assert not re.search(r"\bratios?\b", text.lower()), path  # a word the pages no longer use: one convention


FILES_OF = {"writer-quick": 2, "epochs-new": 2, "epochs-old": 2, "sweep-live": 14, "history": 10, "mix-new": 54}


@pytest.mark.parametrize(("collection", "files"), sorted(FILES_OF.items()))
def test_each_page_counts_its_own_files(shape_pages, collection, files):
    """The generator writes one file per run; history adds history-09-late.jsonl (a checkpoint
    without a step), and history-09's own file holds its misspelt run_end: the only rejected lines
    of any page; sweep-live's orphan-1.jsonl names a run without a run_start (misspelt
    `runstart`), which no collection has, so it is on the index only."""
    text = page(shape_pages, collection)
    quality = section(text, "Data quality")
    assert f"Over the {files} log files that hold this collection's runs" in quality
    rejected = (
        "2 (`missing_step` 1, first at `history/history-09-late.jsonl:1`; `unknown_event` 1, first at "
        "`history/history-09.jsonl:8`)"
        if collection == "history"
        else "0"
    )
    assert f"- rejected lines: {rejected}\n" in quality + "\n"
    index = (shape_pages / "index.md").read_text(encoding="utf-8")
    assert "`orphan-1` | `sweep-live/orphan-1.jsonl` | 2 |" in index
    assert "its run_start is written `runstart` (`sweep-live/orphan-1.jsonl:1`)" in index


def test_the_sample_page_counts_only_its_own_rejects(sample_pages):
    """The sample's six rejected lines all sit in zz-faults/mixed_faults.jsonl, a file of v3's
    lines: v3's page names them, v2's and v4's say 0 and name no file of zz-faults."""
    for slug, rejected in (
        ("from-entangled-v2-continuous-v2", "0"),
        ("from-entangled-v2-continuous-v4-live", "0"),
        ("from-entangled-v2-continuous-v3-beta-schedule", "6"),
    ):
        quality = section(page(sample_pages, slug), "Data quality")
        assert f"- rejected lines: {rejected}" in quality
        assert ("zz-faults/mixed_faults.jsonl" in quality) == (rejected != "0")


def test_no_sample_metadata_in_a_database_of_other_logs(shapes_build, shape_pages):
    with duckdb.connect(str(shapes_build[1]), read_only=True) as connection:
        collections = {row[0] for row in connection.execute("select collection from dim_collections").fetchall()}
    assert collections == {collection for collection, _, _ in shapes.COLLECTIONS}
    index = (shape_pages / "index.md").read_text(encoding="utf-8")
    assert "from-entangled" not in index and "continuous-v" not in index


def test_pages_of_collections_no_longer_in_the_database_are_removed(shapes_build, tmp_path):
    out = tmp_path / "out"
    (out / "gone-collection").mkdir(parents=True)
    (out / "gone-collection" / "profile.md").write_text("# an old page\n")
    (out / "gone-collection" / "timeline.png").write_bytes(b"\x89PNG")
    (out / "notes").mkdir()
    (out / "notes" / "mine.md").write_text("a user's own file: kept\n")
    render_reports(shapes_build[1], out)
    assert not (out / "gone-collection").exists()
    assert (out / "notes" / "mine.md").exists()
    assert (out / "writer-quick" / "profile.md").exists()


DURATION = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?) (s|min|h|d)\b")
SECONDS_PER = {"s": 1, "min": 60, "h": 3600, "d": 86400}
CODE_SPAN = re.compile(r"`[^`\n]*`")


@pytest.mark.parametrize("pages", ["shape_pages", "sample_pages"])
def test_nothing_under_an_hour_reads_in_hours_and_one_table_column_has_one_unit(pages, request):
    """Units (rules.md): a duration under an hour is in minutes or seconds (never 0.191 h for
    11 min), under a day never in days (never 0.515 d), and every duration column of a table
    uses one unit."""
    folder = request.getfixturevalue(pages)
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in DURATION.finditer(CODE_SPAN.sub("", text)):
            value, unit = float(match.group(1).replace(",", "")), match.group(2)
            if unit in ("h", "d") and value != 0:
                assert value >= 1, (path, match.group(0))  # 0.9 h is 54 min, 0.9 d is 21.6 h
        for table in re.findall(r"(?:^\|.*\|\n)+", text, re.M):
            rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()[2:]]
            for column in zip(*rows, strict=False):
                found = {m.group(2) for cell in column for m in [DURATION.fullmatch(cell.lstrip("+-< "))] if m}
                assert len(found) <= 1, (path, column)


def test_the_same_figure_reads_the_same_in_a_sentence_and_in_a_table(sample_pages):
    """v3's mean wall time (4,472 s: 74.5 min) opens the page, leads the comparison and fills
    the comparison table, in one unit; each task's mean reads the same in the tasks table, in
    the table against the baseline and in the slowest and fastest tasks sentence (118 min for
    base_conversion, 7,092 s)."""
    text = page(sample_pages, "from-entangled-v2-continuous-v3-beta-schedule")
    assert "Wall time per run: mean 74.5 min," in text
    assert "8.26x faster (74.5 min against 615 min mean wall time)" in text
    assert "| mean wall time, all tasks | 74.5 min | 615 min |" in text
    assert "| base_conversion | 6 | 4 | 118 min | 773 min |" in text
    assert "| base_conversion | 6 | 0 | 118 min |" in text
    assert "Slowest: base_conversion 118 min," in text


@pytest.mark.parametrize("pages", ["shape_pages", "sample_pages"])
def test_one_name_per_collection_on_a_page(pages, request):
    """A page names each collection by its title (the collections file's); the collection's id
    appears only inside a query (the code that selects its rows), never as a second name, in
    text or in code (the old pages opened with "Collection `id`" under the title)."""
    folder = request.getfixturevalue(pages)
    database = request.getfixturevalue("shapes_build")[1] if pages == "shape_pages" else None
    if database is None:
        database = request.getfixturevalue("sample_build").database
    with duckdb.connect(str(database), read_only=True) as connection:
        names = connection.sql("select collection, title from dim_collections").fetchall()
    for path in sorted(folder.rglob("*.md")):
        queries = re.compile(r"`[^`\n]*collection = '[^`\n]*`")
        prose = queries.sub("", path.read_text(encoding="utf-8"))
        prose = re.sub(r"\]\([^)]*\)", "]", prose)  # link targets are addresses, not names
        for collection, title in names:
            if title and title != collection:
                # as a name: not a part of a run's id such as history-09
                assert not re.search(rf"(?<![\w/-]){re.escape(collection)}(?![\w/-])", prose), (path, collection)


def test_the_shapes_flag_few_stragglers(shapes_build):
    """No shape plants a slow run (tests/support/shapes.py): at most a few percent of their scored
    runs are stragglers (def_stragglers, the expected rate), here none of them."""
    with duckdb.connect(str(shapes_build[1]), read_only=True) as connection:
        scored, flagged = connection.execute(
            "select count(*), count(*) filter (where is_straggler) from fct_run_stragglers"
            " where wall_to_peer_median is not null"
        ).fetchone()
    assert scored >= 72 and flagged <= 0.05 * scored, (scored, flagged)  # mix-old alone: 24 tasks x 3 runs
