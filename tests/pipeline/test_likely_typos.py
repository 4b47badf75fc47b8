"""A misspelt runlens event type is never silently an other event (issue 43): a name that holds a
type's name (`run_ended`, `checkpoint_saved`) or a type's subject with another word for its verb
(`run_finished`, `on_train_begin`) is rejected as `unknown_event`, names the type it resembles and
gets its fix on the page, as `chekpoint` and `runstart` did; names that hold none (`eval_started`,
`epoch_start`) stay other events (models/staging/input_contract.md, "Event types").

One real build and report of a small folder, through the `runlens` command; the figures are counted
by hand from the lines below.
"""

from __future__ import annotations

import json

import duckdb

from runlens.raw_logs.as_of import SAMPLE_AS_OF
from tests.support.pipeline import DATABASE, runlens_command


def event(run_id: str, name: str, minute: int, **fields) -> str:
    return json.dumps({"run_id": run_id, "event": name, "ts": f"2025-03-01T10:{minute:02d}:00Z", **fields}) + "\n"


START = {"collection": "typos/run-ended", "task": "t"}
LOGS = {
    # a run that finished, but whose run_end is written run_ended
    "ended.jsonl": [
        event("ended-1", "run_start", 0, **START),
        event("ended-1", "checkpoint", 10, step=100),
        event("ended-1", "eval_started", 11),  # an other event: holds no type's name
        event("ended-1", "epoch_end", 20, epoch=1, step=200),
        event("ended-1", "run_ended", 21, status="completed"),
    ],
    # a run that logs its saves as checkpoint_saved, its end as run_finished
    "saved.jsonl": [
        event("saved-1", "run_start", 0, **START),
        event("saved-1", "on_train_begin", 1),
        event("saved-1", "checkpoint_saved", 10, step=100),
        event("saved-1", "epoch_start", 11),  # an other event: epoch_start is no runlens type
        event("saved-1", "run_finished", 20, status="completed"),
        event("saved-1", "run_end", 20, status="completed"),
    ],
}


def test_names_that_hold_a_type_are_likely_typos_and_say_so(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name, lines in LOGS.items():
        (raw / name).write_text("".join(lines))
    database, pages = tmp_path / DATABASE, tmp_path / "pages"
    env = {"RUNLENS_AS_OF": SAMPLE_AS_OF}
    built = runlens_command("build", "--logs", raw, "--db", database, env=env, cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    assert runlens_command("report", "--db", database, "--out", pages, cwd=tmp_path).returncode == 0

    with duckdb.connect(str(database), read_only=True) as connection:
        rejected = connection.execute(
            "select event_name, resembles_event_type from fct_rejected_lines "
            "where reject_reason = 'unknown_event' order by event_name"
        ).fetchall()
        other = connection.execute("select event_type from fct_other_events order by event_type").fetchall()
        typos = connection.execute(
            "select event_name, resembles_event_type, rejected_lines from agg_collection_likely_typos "
            "order by event_name"
        ).fetchall()
        ended = connection.execute("select status from fct_runs where run_id = 'ended-1'").fetchone()
    assert rejected == [
        ("checkpoint_saved", "checkpoint"),
        ("on_train_begin", "train_start"),
        ("run_ended", "run_end"),
        ("run_finished", "run_end"),
    ]
    assert other == [("epoch_start",), ("eval_started",)]
    assert typos == [
        ("checkpoint_saved", "checkpoint", 1),
        ("on_train_begin", "train_start", 1),
        ("run_ended", "run_end", 1),
        ("run_finished", "run_end", 1),
    ]
    assert ended != ("completed",)  # its run_end was never read: the page must say why
    page = (pages / "typos-run-ended" / "profile.md").read_text()
    assert "event `run_ended` looks like a misspelt `run_end`" in page
    assert "RUNLENS_EVENT_ALIASES=run_ended=run_end" in page
