"""Sentences that stay true at their edges, on a real build and its rendered pages: shares that print
the same are never ranked (rules.md, "Ties": named together, in the order the mart gives them),
and an abandoned run says what its silence was judged against when its task, or its whole
collection, has no completed run (def_abandoned).

The logs (judged as of the sample's as-of time, 2025-03-10 12:00 UTC, as every test build is;
every figure worked out by hand):

- `tie-kinds`: runs a and b of task t, each 30 min: run_start, a checkpoint, epoch_end, run_end.
  a's intervals are 12, 9, 9 min; b's 9, 12, 9. By kind: run_start -> checkpoint 21 min,
  checkpoint -> epoch_end 21 min, epoch_end -> run_end 18 min, of 60: 35.0%, 35.0%, 30.0%. Before
  the final epoch end, a's longest is run_start -> step_100 (12 min), b's step_100 -> epoch_end:
  each label the longest in 1 of the 2 runs, and each 10.5 min on average ((12 + 9) / 2).
- `tie-sections`: one run of 100 s whose profile has sections train 40 s, data 40 s, io 10 s:
  40.0%, 40.0%, 10.0% of its profiled wall time.
- `lonely`: one run (task solo) that logged a checkpoint 10 min after its run_start and then
  `run_ended` (a misspelt run_end, an other event) 20 min later: silent since its checkpoint, on
  2025-01-01 00:10, for 68.5 d at the as-of time. No run of its collection completed, so it is judged against
  the horizon alone, 7 days (abandon_horizon_seconds): abandoned after 7.00 d.
- `partly`: task done has 3 completed runs of 30, 40 and 50 min; task quiet's one run logged a
  checkpoint 10 min after its run_start and nothing more. Its task has no completed run, so it is
  judged against its collection's longest, 50 min (its stall threshold, 3 x the 95th percentile of
  what done's runs took after step_100, 600, 800 and 1000 s: 3 x 980 = 2940 s, is shorter):
  abandoned after 50.0 min.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from runlens.report.render import render_reports
from tests.support.pipeline import DATABASE, PROJECT, build
from tests.support.prebuilt import Prebuilds, prebuilt

START = datetime(2025, 1, 1, tzinfo=UTC)


def line(run_id: str, event: str, minutes: float, **fields) -> str:
    at = (START + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    return json.dumps({"run_id": run_id, "event": event, "ts": at, **fields})


def marked_run(run_id: str, collection: str, task: str, minutes: list[float], end: bool = True) -> list[str]:
    """run_start, a checkpoint, an epoch_end and a run_end, the intervals between them given."""
    at = [sum(minutes[:index]) for index in range(len(minutes) + 1)]
    lines = [line(run_id, "run_start", at[0], collection=collection, task=task)]
    lines.append(line(run_id, "checkpoint", at[1], step=100))
    if len(minutes) > 1:
        lines.append(line(run_id, "epoch_end", at[2], step=100, epoch=1))
    if end:
        lines.append(line(run_id, "run_end", at[-1], status="completed"))
    return lines


@prebuilt()
def edges_build(builds: Prebuilds) -> Path:
    raw = builds.mktemp("edges") / "raw"
    raw.mkdir()
    lines = marked_run("a", "tie-kinds", "t", [12, 9, 9]) + marked_run("b", "tie-kinds", "t", [9, 12, 9])
    lines += [
        line("p", "run_start", 0, collection="tie-sections", task="t"),
        line("p", "run_end", 100 / 60, status="completed"),
        line("p", "profile", 100 / 60, wall_seconds=100, sections={"train": 40, "data": 40, "io": 10}),
    ]
    lines += marked_run("lonely-1", "lonely", "solo", [10], end=False) + [line("lonely-1", "run_ended", 30)]
    for number, minutes in enumerate((30, 40, 50), start=1):
        lines += marked_run(f"done-{number}", "partly", "done", [minutes / 3] * 3)
    lines += marked_run("quiet-1", "partly", "quiet", [10], end=False)
    (raw / "logs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    database = raw.parent / DATABASE
    build(PROJECT, raw, database)
    return database


@pytest.fixture(scope="module")
def pages(edges_build, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edges_pages")
    render_reports(edges_build, out)
    return out


def page(pages: Path, slug: str) -> str:
    return (pages / slug / "profile.md").read_text(encoding="utf-8")


def test_tied_kinds_of_interval_are_named_together(pages):
    text = page(pages, "tie-kinds")
    assert (
        "- `checkpoint -> epoch_end` (the rest of an epoch after a save) and `run_start -> checkpoint` (start-up and"
        " the first stretch of training, or training resumed after a restart) take the most time, 35.0% each of the"
        " summed wall time of the runs with markers; next comes `epoch_end -> run_end` with 30.0%."
    ) in text
    assert "next comes `checkpoint -> epoch_end`" not in text


def test_tied_profiler_sections_are_named_together(pages):
    text = page(pages, "tie-sections")
    assert (
        "- **data** and **train** take the most time, 40.0% each of the profiled wall time; next comes io with"
        " 10.0% (over 1 profiled run)."
    ) in text


def test_two_labels_longest_as_often_are_named_together(pages):
    text = page(pages, "tie-kinds")
    assert (
        "- No interval is the longest in most runs: `run_start -> step_100` and `step_100 -> epoch_end` are each the"
        " longest in 1 of 2 runs (10.5 min each on average over all of them)."
    ) in text
    assert "the one most often longest" not in text


def abandoned_rows(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(index for index, row in enumerate(lines) if row.startswith("| run | task | last marker"))
    rows = []
    for row in lines[start + 2 :]:
        if not row.startswith("|"):
            return rows
        rows.append(row)
    return rows


def test_an_abandoned_run_without_a_completed_run_in_its_collection_is_judged_against_the_horizon(pages):
    text = page(pages, "lonely")
    assert (
        "- Nothing is running: 1 run never finished and went silent for longer than 7.00 d, the most runlens waits"
        " when no run of its collection has completed (`abandon_horizon_seconds`), so it is counted as abandoned,"
        " not as running."
    ) in text
    assert "longer than any completed run of its task took for the whole run" not in text
    assert abandoned_rows(text) == [
        "| `lonely-1` | solo | `step_100` | 2025-01-01 00:10 UTC | 68.5 d | 7.00 d"
        " | the horizon alone (no run of its collection completed) |"
    ]


def test_an_abandoned_run_whose_task_has_no_completed_run_is_judged_against_its_collection(pages):
    text = page(pages, "partly")
    assert (
        "went silent for longer than any completed run of its collection took for the whole run (its task has no"
        " completed run), so it is counted as abandoned"
    ) in text
    assert abandoned_rows(text) == [
        "| `quiet-1` | quiet | `step_100` | 2025-01-01 00:10 UTC | 68.5 d | 50.0 min"
        " | its collection's longest completed run (none of its task completed) |"
    ]
