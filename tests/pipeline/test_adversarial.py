"""Adversarial inputs, each with a named expected outcome, through the real `dbt build`.

The inputs are grouped into a few raw folders, one build each, where their outcomes cannot
interfere: every case has a file of its own, and every file also holds one known-good run
(`good_run`) whose figures are worked out by hand below, so each test can also assert that the
neighbouring lines were unaffected. Inputs that can take the whole build down on resources (a
config with 100,000 keys, a profile with 100,000 sections) get builds of their own, whose outcome
their test checks, so that a failure names its input instead of erroring a shared fixture. The
file system's odd cases (odd names, symlinks, file names that are glob patterns, a named pipe)
share one build: its test of the glob names and of the pipe check that build's outcome first.
Every build is declared `@prebuilt()`: they start in the background when the session starts.

Builds that may exhaust resources run with DuckDB limits written into their project copy's
profiles.yml (pipeline.Project settings): without them, one adversarial line can fill the disk.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs.folder_metadata import COLLECTIONS_FILE
from tests.support.pipeline import DATABASE, REFRESH, Project, dbt_process, project_copies, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt

GOOD_COLLECTION = "adv"  # only known-good runs (and the clock-skewed one) live here
OTHER_COLLECTION = "adv-other"
T0 = "2025-01-01T00:00:00Z"

# The known-good run: start 00:00:00, checkpoint 100 at 00:01:00, epoch end at 00:01:30, end at
# 00:02:00.500 (no status: completed). Wall 120.5 s; pre-tail 90 s; tail 30.5 s.
GOOD_FIGURES = {
    "status": "completed",
    "exclusion_reason": None,
    "measurement_source": "event_log",
    "wall_seconds": 120.5,
    "pre_tail_seconds": 90.0,
    "tail_seconds": 30.5,
    "tail_share": 30.5 / 120.5,
    "downtime_seconds": 0.0,
    "active_seconds": 120.5,
    "restarts": 0,
}
GOOD_INTERVALS = [("run_start -> step_100", 60.0), ("step_100 -> epoch_end", 30.0), ("epoch_end -> run_end", 30.5)]


def good_run(run_id: str) -> list[dict]:
    return [
        {"run_id": run_id, "event": "run_start", "ts": T0, "collection": GOOD_COLLECTION, "task": "t", "config": {}},
        {"run_id": run_id, "event": "checkpoint", "ts": "2025-01-01T00:01:00Z", "step": 100},
        {"run_id": run_id, "event": "epoch_end", "ts": "2025-01-01T00:01:30Z", "epoch": 1},
        {"run_id": run_id, "event": "run_end", "ts": "2025-01-01T00:02:00.500Z"},
    ]


def with_good_run(run_id: str, *cases) -> list:
    """The good run's run_start, then the cases (lines 2, 3, ...), then the rest of the good run."""
    good = good_run(run_id)
    return [good[0], *cases, *good[1:]]


def encode(line) -> bytes:
    if isinstance(line, dict):
        return json.dumps(line).encode()
    return line.encode() if isinstance(line, str) else line


def write_logs(raw: Path, files: dict[str, list]) -> None:
    for name, lines in files.items():
        path = raw / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(encode(line) + b"\n" for line in lines))


def seed_text(pairs: dict[str, str]) -> str:
    rows = ["collection,title,baseline_collection,design_url,results_url"]
    rows += [f"{collection},,{baseline},," for collection, baseline in pairs.items()]
    return "\n".join(rows) + "\n"


# The kinds of project copy these builds run in: the line, big-line and file system builds with a
# spill limit; the builds of 100,000 keys or sections with a memory limit too.
LIMITED = Project.limited(max_temp_directory_size="4GB")
TIGHT = Project.limited(max_temp_directory_size="2GB", memory_limit="2GB")
# every scratch folder's collections file: the big build's baseline and the many-keys run's (a row
# of a collection without runs in a build changes nothing there)
COLLECTIONS = seed_text({"adv-deep": "adv-deep-base", "adv-many": "adv-many-base"})


@dataclass(frozen=True)
class Outcome:
    """A build's finished process and its database."""

    result: subprocess.CompletedProcess
    database: Path

    def assert_passed(self) -> None:
        assert self.result.returncode == 0, self.result.stdout[-3000:]


def scratch(builds: Prebuilds, name: str, files: dict[str, list]) -> tuple[Path, Path]:
    """A raw folder with `files`; returns (raw, database to build)."""
    root = builds.mktemp(name)
    raw = root / "raw"
    raw.mkdir()
    write_logs(raw, files)
    (raw / COLLECTIONS_FILE).write_text(COLLECTIONS, encoding="utf-8")
    return raw, root / "db" / DATABASE


def scratch_build(builds: Prebuilds, name: str, files: dict[str, list], kind: Project) -> Outcome:
    raw, database = scratch(builds, name, files)
    return Outcome(run_dbt(kind, raw, database, *REFRESH, planned=True), database)


def rows(db, sql: str, *params) -> list[dict]:
    cursor = db.execute(sql, list(params))
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def one(db, sql: str, *params) -> dict:
    found = rows(db, sql, *params)
    assert len(found) == 1, f"expected one row, got {len(found)}: {sql} {params}"
    return found[0]


def run_row(db, run_id: str) -> dict:
    return one(db, "select * from fct_runs where run_id = ?", run_id)


def reject_reason(db, file_path: str, line_number: int) -> str | None:
    """The line's reject reason, or None when it was accepted (it must be one or the other)."""
    rejected = rows(
        db,
        "select reject_reason from fct_rejected_lines where file_path = ? and line_number = ?",
        file_path,
        line_number,
    )
    accepted = rows(db, "select 1 from fct_events where file_path = ? and line_number = ?", file_path, line_number)
    assert len(rejected) + len(accepted) == 1, f"{file_path}:{line_number} must be accepted or rejected once"
    return rejected[0]["reject_reason"] if rejected else None


def intervals(db, run_id: str) -> list[tuple[str, float]]:
    return db.execute(
        "select label, seconds from fct_run_intervals where run_id = ? order by interval_index", [run_id]
    ).fetchall()


def assert_good_run(db, run_id: str) -> None:
    row = run_row(db, run_id)
    assert (row["collection"], row["task"]) == (GOOD_COLLECTION, "t")
    for column, value in GOOD_FIGURES.items():
        if isinstance(value, float):
            assert row[column] == pytest.approx(value, abs=1e-9), column
        else:
            assert row[column] == value, column
    found = intervals(db, run_id)
    assert [label for label, _ in found] == [label for label, _ in GOOD_INTERVALS]
    assert [seconds for _, seconds in found] == pytest.approx([seconds for _, seconds in GOOD_INTERVALS], abs=1e-9)


def assert_file_lines(db, file_path: str, physical: int, under_test: set[int]) -> None:
    """Every line of the file is read; only the lines under test may end up other than accepted."""
    row = one(db, "select * from agg_file_data_quality where file_path = ?", file_path)
    assert row["read_error"] is None
    assert (row["physical_lines"], row["blank_lines"], row["lines_read"]) == (physical, 0, physical)
    assert row["lines_read"] == row["accepted"] + row["duplicates"] + row["rejected"]
    accepted = rows(db, "select line_number from fct_events where file_path = ?", file_path)
    assert set(range(1, physical + 1)) - {r["line_number"] for r in accepted} <= under_test
    assert row["accepted"] == len(accepted)


# =================================================================================================
# Build 1: single bad (or odd) lines, one file per case
# =================================================================================================

BIG_STEPS = [2**70, 2**64, 2**64 - 1, 2**63, -(2**63) - 1]
NAN_LINES = [
    '{"run_id":"r","event":"profile","ts":1,"wall_seconds":NaN}',
    '{"run_id":"good-nan","event":"profile","ts":"2025-01-01T00:01:00Z","wall_seconds":Infinity}',
    '{"run_id":"good-nan","event":"profile","ts":"2025-01-01T00:01:01Z","wall_seconds":-Infinity}',
    '{"run_id":"good-nan","event":"checkpoint","ts":"2025-01-01T00:00:30Z","step":50,"loss":NaN}',
]
DUPLICATE_KEY_LINES = [
    '{"run_id":"dupkey-first","run_id":"dupkey-second","event":"run_start","ts":"2025-01-01T00:00:00Z",'
    '"collection":"adv-other","task":"t"}',
    '{"run_id":"dupkey-first","event":"run_end","ts":"2025-01-01T00:00:10Z"}',
    '{"run_id":"dupkey-second","event":"run_end","ts":"2025-01-01T00:00:20Z"}',
    '{"run_id":"dupkey-ts","event":"run_start","ts":"2025-01-01T00:00:00Z","ts":"2025-01-01T00:05:00Z",'
    '"collection":"adv-other","task":"t"}',
    '{"run_id":"dupkey-ts","event":"run_end","ts":"2025-01-01T00:10:00Z"}',
    '{"run_id":5,"run_id":"dupkey-number-first","event":"run_start","ts":"2025-01-01T00:00:00Z",'
    '"collection":"adv-other","task":"t"}',
    '{"run_id":"dupkey-string-first","run_id":5,"event":"run_start","ts":"2025-01-01T00:00:00Z",'
    '"collection":"adv-other","task":"t"}',
    '{"run_id":"dupkey-string-first","event":"run_end","ts":"2025-01-01T00:00:30Z"}',
]
LOWERCASE_LINES = [
    {
        "run_id": "lowercase-t",
        "event": "run_start",
        "ts": "2025-01-01t00:00:00Z",
        "collection": OTHER_COLLECTION,
        "task": "t",
    },
    {"run_id": "lowercase-t", "event": "run_end", "ts": "2025-01-01T00:01:00Z"},
    {
        "run_id": "lowercase-z",
        "event": "run_start",
        "ts": "2025-01-01T00:00:00z",
        "collection": OTHER_COLLECTION,
        "task": "t",
    },
    {"run_id": "lowercase-z", "event": "run_end", "ts": "2025-01-01 00:01:00z"},
]
OUT_OF_RANGE_TS = {  # RFC 3339 section 5.6: hour 00-23, minute 00-59, offset hour 00-23 and minute 00-59
    "hour 24": "2025-01-01T24:00:00Z",
    "offset hour 24": "2025-01-01T00:00:30+24:00",
    "offset minute 60": "2025-01-01T08:00:30+05:60",
    "minute 60": "2025-01-01T00:60:00Z",
    "29 February of a common year": "2025-02-29T00:00:00Z",
}
LINE_FILES = {
    "step-beyond-64-bit.jsonl": with_good_run(
        "good-step-big",
        *[
            {"run_id": "good-step-big", "event": "checkpoint", "ts": f"2025-01-01T00:00:{30 + i}Z", "step": step}
            for i, step in enumerate(BIG_STEPS)
        ],
        {"run_id": "good-step-big", "event": "checkpoint", "ts": "2025-01-01T00:00:40Z", "step": 100.0},
    ),
    "step-max.jsonl": with_good_run(
        "good-step-max",
        {"run_id": "step-max", "event": "run_start", "ts": T0, "collection": OTHER_COLLECTION, "task": "t"},
        {"run_id": "step-max", "event": "checkpoint", "ts": "2025-01-01T00:00:10Z", "step": 2**63 - 1},
        {"run_id": "step-max", "event": "run_end", "ts": "2025-01-01T00:00:20Z"},
    ),
    "year-1-to-9999.jsonl": with_good_run(
        "good-years",
        {
            "run_id": "year-span",
            "event": "run_start",
            "ts": "0001-01-01T00:00:00Z",
            "collection": OTHER_COLLECTION,
            "task": "t",
        },
        {"run_id": "year-span", "event": "epoch_end", "ts": T0, "epoch": 1},
        {"run_id": "year-span", "event": "run_end", "ts": "9999-12-31T23:59:59Z"},
    ),
    "nan-and-infinity.jsonl": with_good_run("good-nan", *NAN_LINES),
    "duplicate-keys.jsonl": with_good_run("good-dupkey", *DUPLICATE_KEY_LINES),
    "clock-skew.jsonl": with_good_run(
        "good-skew",
        {
            "run_id": "skewed",
            "event": "run_start",
            "ts": "2025-01-01T01:00:00Z",
            "collection": GOOD_COLLECTION,
            "task": "t",
        },
        {"run_id": "skewed", "event": "checkpoint", "ts": "2025-01-01T01:00:10Z", "step": 100},
        {"run_id": "skewed", "event": "run_end", "ts": "2025-01-01T00:30:00Z"},
    ),
    "lowercase-t-and-z.jsonl": with_good_run("good-lowercase", *LOWERCASE_LINES),
    "out-of-range-times.jsonl": with_good_run(
        "good-range",
        *[
            {"run_id": "good-range", "event": "checkpoint", "ts": ts, "step": 1000 + i}
            for i, ts in enumerate(OUT_OF_RANGE_TS.values())
        ],
        {"run_id": "good-range", "event": "checkpoint", "ts": "2016-12-31T23:59:60Z", "step": 999},
    ),
    "status-null.jsonl": with_good_run(
        "good-status",
        {"run_id": "status-null", "event": "run_start", "ts": T0, "collection": OTHER_COLLECTION, "task": "t"},
        {"run_id": "status-null", "event": "run_end", "ts": "2025-01-01T00:00:40Z", "status": None},
    ),
    "profiled-restart.jsonl": with_good_run(
        "good-profiled",
        {"run_id": "profiled-restart", "event": "run_start", "ts": T0, "collection": OTHER_COLLECTION, "task": "t"},
        {"run_id": "profiled-restart", "event": "checkpoint", "ts": "2025-01-01T00:00:10Z", "step": 1},
        {
            "run_id": "profiled-restart",
            "event": "run_start",
            "ts": "2025-01-01T01:00:10Z",
            "collection": OTHER_COLLECTION,
            "task": "t",
        },
        {"run_id": "profiled-restart", "event": "profile", "ts": "2025-01-01T01:00:20Z", "wall_seconds": 100},
    ),
    # the same event twice with different payloads: the first by file path and line number counts
    "conflict/1.jsonl": with_good_run(
        "good-conflict-1",
        {"run_id": "conflict", "event": "run_start", "ts": T0, "collection": OTHER_COLLECTION, "task": "t"},
        {"run_id": "conflict", "event": "run_end", "ts": "2025-01-01T00:00:50Z", "status": "failed"},
    ),
    "conflict/2.jsonl": with_good_run(
        "good-conflict-2",
        {"run_id": "conflict", "event": "run_end", "ts": "2025-01-01T00:00:50Z"},
    ),
}
LINE_GOOD_RUNS = {name: lines[0]["run_id"] for name, lines in LINE_FILES.items()}


@prebuilt()
def lines_build(builds: Prebuilds) -> Outcome:
    return scratch_build(builds, "lines", LINE_FILES, LIMITED)


@pytest.fixture(scope="module")
def lines_db(lines_build):
    lines_build.assert_passed()
    with duckdb.connect(str(lines_build.database), read_only=True) as connection:
        yield connection


@pytest.mark.parametrize("file_path", list(LINE_FILES))
def test_neighbouring_good_run_is_unaffected(lines_db, file_path):
    assert_good_run(lines_db, LINE_GOOD_RUNS[file_path])
    lines = LINE_FILES[file_path]
    assert_file_lines(lines_db, file_path, len(lines), under_test=set(range(2, len(lines) - 2)))


def test_good_collection_statistics_are_exactly_the_good_runs(lines_db):
    """Its only other run is clock-skewed: excluded, so the mean is the good runs' 120.5 s."""
    row = one(lines_db, "select * from agg_collection_runtime where collection = ?", GOOD_COLLECTION)
    assert (row["runs_analyzed"], row["runs_excluded"], row["runs_clock_skew"]) == (len(LINE_FILES), 1, 1)
    for column in ("mean_wall_seconds", "median_wall_seconds", "min_wall_seconds", "max_wall_seconds"):
        assert row[column] == pytest.approx(120.5, abs=1e-9), column
    assert row["mean_tail_share"] == pytest.approx(30.5 / 120.5)


@pytest.mark.parametrize("offset,step", list(enumerate(BIG_STEPS)), ids=[str(s) for s in BIG_STEPS])
def test_checkpoint_step_beyond_64_bit_is_rejected_as_missing_step(lines_db, offset, step):
    assert reject_reason(lines_db, "step-beyond-64-bit.jsonl", 2 + offset) == "missing_step"


def test_checkpoint_step_written_as_a_float_is_rejected_as_missing_step(lines_db):
    """Documents current behaviour: `"step": 100.0` is rejected, although the contract's JSON Schema
    ("type": "integer", which in JSON Schema includes 100.0, and has no 64-bit bounds) accepts it
    and the steps above 2**63 - 1 alike."""
    assert reject_reason(lines_db, "step-beyond-64-bit.jsonl", 2 + len(BIG_STEPS)) == "missing_step"


def test_checkpoint_step_of_2_63_minus_1_is_accepted(lines_db):
    row = run_row(lines_db, "step-max")
    assert (row["status"], row["wall_seconds"]) == ("completed", 20.0)
    label = f"step_{2**63 - 1}"
    assert intervals(lines_db, "step-max") == [(f"run_start -> {label}", 10.0), (f"{label} -> run_end", 10.0)]


def test_run_from_year_1_to_year_9999_is_measured(lines_db):
    start, epoch_end, end = datetime(1, 1, 1), datetime(2025, 1, 1), datetime(9999, 12, 31, 23, 59, 59)
    wall = (end - start).total_seconds()  # 315537897599 s
    row = run_row(lines_db, "year-span")
    assert (row["status"], row["exclusion_reason"], row["measurement_source"]) == ("completed", None, "event_log")
    assert row["wall_seconds"] == wall
    assert row["pre_tail_seconds"] == (epoch_end - start).total_seconds()
    assert row["tail_seconds"] == (end - epoch_end).total_seconds()
    assert row["tail_share"] == pytest.approx((end - epoch_end).total_seconds() / wall, rel=1e-12)
    assert intervals(lines_db, "year-span") == [
        ("run_start -> epoch_end", (epoch_end - start).total_seconds()),
        ("epoch_end -> run_end", (end - epoch_end).total_seconds()),
    ]


@pytest.mark.parametrize("offset", range(len(NAN_LINES)))
def test_nan_and_infinity_literals_are_invalid_json(lines_db, offset):
    assert reject_reason(lines_db, "nan-and-infinity.jsonl", 2 + offset) == "invalid_json"


def test_duplicate_keys_the_first_value_wins_for_every_field(lines_db):
    """The contract is silent on duplicate keys (RFC 8259: names SHOULD be unique). The pipeline
    reads the first occurrence of a key, for its type check and its value alike. Python's json,
    jsonschema and so tests/support/oracle.py read the last one: they disagree with the pipeline here."""
    path = "duplicate-keys.jsonl"
    assert [reject_reason(lines_db, path, n) for n in range(2, 10)] == [None] * 5 + ["missing_run_id", None, None]
    first = run_row(lines_db, "dupkey-first")
    assert (first["status"], first["wall_seconds"]) == ("completed", 10.0)
    assert run_row(lines_db, "dupkey-second")["exclusion_reason"] == "no_run_start"
    assert run_row(lines_db, "dupkey-ts")["wall_seconds"] == 600.0
    assert run_row(lines_db, "dupkey-string-first")["wall_seconds"] == 30.0
    assert rows(lines_db, "select * from fct_runs where run_id = 'dupkey-number-first'") == []


def test_run_end_before_run_start_is_clock_skew(lines_db):
    row = run_row(lines_db, "skewed")
    assert row["exclusion_reason"] == "clock_skew"
    assert row["is_analyzed"] is False
    assert row["wall_seconds"] is None  # def_wall_seconds: NULL for a run with clock skew
    assert row["measurement_source"] is None
    for column in ("pre_tail_seconds", "tail_seconds", "active_seconds", "downtime_seconds"):
        assert row[column] is None or row[column] >= 0, column
    assert all(seconds >= 0 for _, seconds in intervals(lines_db, "skewed"))


@pytest.mark.parametrize("line_number", [2, 4, 5])
def test_lowercase_t_and_z_are_accepted(lines_db, line_number):
    """RFC 3339 section 5.6 allows a lowercase 't' and 'z' (fixed in 7a45a8d for 't'; 'z' too)."""
    assert reject_reason(lines_db, "lowercase-t-and-z.jsonl", line_number) is None
    assert run_row(lines_db, "lowercase-t")["wall_seconds"] == 60.0
    assert run_row(lines_db, "lowercase-z")["wall_seconds"] == 60.0


@pytest.mark.parametrize(
    "offset,name",
    [
        pytest.param(
            i,
            name,
        )
        for i, name in enumerate(OUT_OF_RANGE_TS)
    ],
)
def test_out_of_range_timestamp_fields_are_bad_ts(lines_db, offset, name):
    assert reject_reason(lines_db, "out-of-range-times.jsonl", 2 + offset) == "bad_ts"


def test_leap_second_is_rejected_as_bad_ts(lines_db):
    """Documents current behaviour: RFC 3339 allows second 60 (a leap second), the contract says
    "RFC 3339" without an exception, and the pipeline (like Python) rejects it as bad_ts."""
    assert reject_reason(lines_db, "out-of-range-times.jsonl", 2 + len(OUT_OF_RANGE_TS)) == "bad_ts"


def test_run_end_status_null_counts_as_completed(lines_db):
    """Documents current behaviour; the contract says "completed when absent; any other value means
    the run failed" and is silent on JSON null. The pipeline treats null as absent (completed);
    tests/support/oracle.py treats it as another value (failed)."""
    row = run_row(lines_db, "status-null")
    assert (row["status"], row["exclusion_reason"], row["wall_seconds"]) == ("completed", None, 40.0)


def test_profiled_resumed_run_has_no_negative_active_time(lines_db):
    row = run_row(lines_db, "profiled-restart")
    assert (row["status"], row["measurement_source"], row["wall_seconds"]) == ("completed", "profiler", 100.0)
    # def_downtime: the profiler's wall time is in-process time, so it holds no downtime
    assert (row["restarts"], row["downtime_seconds"], row["active_seconds"]) == (1, 0.0, 100.0)


def test_conflicting_duplicate_the_first_by_file_path_wins(lines_db):
    row = run_row(lines_db, "conflict")
    assert (row["status"], row["exclusion_reason"], row["wall_seconds"]) == ("failed", "failed", 50.0)
    assert reject_reason(lines_db, "conflict/1.jsonl", 3) is None
    quality = one(lines_db, "select * from agg_file_data_quality where file_path = 'conflict/2.jsonl'")
    assert (quality["accepted"], quality["duplicates"], quality["rejected"]) == (4, 1, 0)
    elsewhere = "select count(*) from {} where file_path = 'conflict/2.jsonl' and line_number = 2"
    assert lines_db.execute(elsewhere.format("fct_events")).fetchone() == (0,)
    assert lines_db.execute(elsewhere.format("fct_rejected_lines")).fetchone() == (0,)


# =================================================================================================
# Build 2: big but legal lines (a 50 MB line, a config nested 10,000 levels deep)
# =================================================================================================

HUGE_BYTES = 50 * 2**20
DEEP_LEVELS = 10_000
DEEP_CONFIG = '{"a":' * DEEP_LEVELS + "1" + "}" * DEEP_LEVELS


def big_files() -> dict[str, list]:
    huge = {"run_id": "huge", "event": "run_start", "ts": T0, "collection": "adv-big", "task": "t"}
    huge["config"] = {"blob": "x" * HUGE_BYTES}
    deep = (
        '{"run_id":"deep","event":"run_start","ts":"2025-01-01T00:00:00Z","collection":"adv-deep","task":"t",'
        f'"config":{DEEP_CONFIG}}}'
    )

    def end(run_id):
        return {"run_id": run_id, "event": "run_end", "ts": "2025-01-01T00:01:40Z"}

    good_huge, good_deep = good_run("good-huge"), good_run("good-deep")
    base = {"run_id": "deep-base", "event": "run_start", "ts": T0, "collection": "adv-deep-base", "task": "t"}
    return {
        # good lines on both sides of the big one
        "huge-line.jsonl": [good_huge[0], huge, good_huge[1], end("huge"), *good_huge[2:]],
        "deep-config.jsonl": [good_deep[0], deep, good_deep[1], end("deep"), *good_deep[2:]],
        "deep-base.jsonl": [{**base, "config": {"a": 2}}, end("deep-base")],
    }


@prebuilt()
def big_build(builds: Prebuilds) -> Outcome:
    return scratch_build(builds, "big", big_files(), LIMITED)


@pytest.fixture(scope="module")
def big_db(big_build):
    big_build.assert_passed()
    with duckdb.connect(str(big_build.database), read_only=True) as connection:
        yield connection


def test_50_mb_line_is_accepted_and_neighbours_are_unaffected(big_db):
    """The contract sets no line length limit, so a valid 50 MB run_start is an ordinary event."""
    assert reject_reason(big_db, "huge-line.jsonl", 2) is None
    length = "select length(config ->> '$.blob') from fct_events where run_id = 'huge' and event_type = 'run_start'"
    assert big_db.execute(length).fetchall() == [(HUGE_BYTES,)]
    row = run_row(big_db, "huge")
    assert (row["status"], row["collection"], row["wall_seconds"]) == ("completed", "adv-big", 100.0)
    assert_good_run(big_db, "good-huge")
    assert_file_lines(big_db, "huge-line.jsonl", 6, under_test=set())


def test_config_nested_10000_levels_is_accepted_and_flattened(big_db):
    assert reject_reason(big_db, "deep-config.jsonl", 2) is None
    row = run_row(big_db, "deep")
    assert (row["status"], row["wall_seconds"]) == ("completed", 100.0)
    assert_good_run(big_db, "good-deep")
    assert_file_lines(big_db, "deep-config.jsonl", 6, under_test=set())
    differences = {
        r["config_key"]: (r["values"], r["baseline_values"])
        for r in rows(big_db, "select * from cmp_collection_config_differences where collection = 'adv-deep'")
    }
    assert differences == {".".join(["a"] * DEEP_LEVELS): ("1", "null"), "a": ("null", "2")}


# =================================================================================================
# Builds 3a and 3b: 100,000 config keys on one run_start, 100,000 sections on one profile (builds of
# their own, with DuckDB memory and spill limits)
# =================================================================================================

MANY_KEYS = 100_000


@prebuilt()
def many_keys_build(builds: Prebuilds) -> Outcome:
    many = {"run_id": "many", "event": "run_start", "ts": T0, "collection": "adv-many", "task": "t"}
    many["config"] = {f"k{i:06d}": i for i in range(MANY_KEYS)}
    base = {"run_id": "many-base", "event": "run_start", "ts": T0, "collection": "adv-many-base", "task": "t"}
    files = {
        "many-keys.jsonl": with_good_run(
            "good-many", many, {"run_id": "many", "event": "run_end", "ts": "2025-01-01T00:01:40Z"}
        ),
        "many-base.jsonl": [base, {"run_id": "many-base", "event": "run_end", "ts": "2025-01-01T00:01:40Z"}],
    }
    return scratch_build(builds, "many_keys", files, TIGHT)


def test_100000_config_keys_on_one_run_start(many_keys_build):
    many_keys_build.assert_passed()
    with duckdb.connect(str(many_keys_build.database), read_only=True) as db:
        assert reject_reason(db, "many-keys.jsonl", 2) is None
        assert run_row(db, "many")["wall_seconds"] == 100.0
        assert_good_run(db, "good-many")
        count = db.execute(
            "select count(*) from cmp_collection_config_differences where collection = 'adv-many'"
        ).fetchone()
        assert count == (MANY_KEYS,)


@prebuilt()
def many_sections_build(builds: Prebuilds) -> Outcome:
    start = {"run_id": "sections", "event": "run_start", "ts": T0, "collection": "adv-many", "task": "t"}
    profile = {"run_id": "sections", "event": "profile", "ts": "2025-01-01T00:01:00Z", "wall_seconds": 1e6}
    profile["sections"] = {f"s{i:06d}": 1 for i in range(MANY_KEYS)}
    files = {"many-sections.jsonl": with_good_run("good-sections", start, profile)}
    return scratch_build(builds, "many_sections", files, TIGHT)


def test_100000_sections_on_one_profile(many_sections_build):
    many_sections_build.assert_passed()
    with duckdb.connect(str(many_sections_build.database), read_only=True) as db:
        assert reject_reason(db, "many-sections.jsonl", 3) is None
        row = run_row(db, "sections")
        assert (row["measurement_source"], row["wall_seconds"]) == ("profiler", 1e6)
        assert_good_run(db, "good-sections")
        total = "select sum(total_seconds) from agg_collection_profile_sections where collection = 'adv-many'"
        assert db.execute(total).fetchone() == (1e6,)  # 100,000 s in sections + 900,000 s unattributed


# =================================================================================================
# Build 4: the file system: odd file names, a symlink loop, a dangling symlink, folders named *.jsonl,
# file names that are glob patterns, a named pipe with a log's name
# =================================================================================================

ODD_NAMES = {
    "with space.jsonl": "good-space",
    "it's.jsonl": "good-single-quote",
    'say "hi".jsonl': "good-double-quote",
    "new\nline.jsonl": "good-newline",
    'sub dir/quote\'d "x"/run.jsonl': "good-nested",
    "folder.jsonl/inner.jsonl": "good-inner",  # a folder with a log's name: walked into, not read
}


def short_run(run_id):
    return [
        {"run_id": run_id, "event": "run_start", "ts": T0, "collection": OTHER_COLLECTION, "task": "t"},
        {"run_id": run_id, "event": "run_end", "ts": "2025-01-01T00:01:00Z"},
    ]


GLOB_FILES = {
    "brackets/run1.jsonl": good_run("good-plain"),
    "brackets/run[1].jsonl": short_run("bracketed"),
    "star/a.jsonl": good_run("good-star-sibling"),
    "star/*.jsonl": short_run("starred"),
}
PIPE_NEIGHBOUR = {"good.jsonl": good_run("good-fifo")}
FILESYSTEM_RUNS = [*ODD_NAMES.values(), "good-plain", "bracketed", "good-star-sibling", "starred", "good-fifo"]


@dataclass(frozen=True)
class PipedOutcome(Outcome):
    waited_on_pipe: bool


def build_watching_the_pipe(raw: Path, database: Path, fifo: Path) -> PipedOutcome:
    """The build, with the pipe's write end opened whenever the build is waiting on it (then closed,
    so the reader sees end of file and the build can go on): it finishes either way, and records
    whether the pipeline ever waited."""
    with project_copies().checkout(LIMITED) as project:
        database.parent.mkdir(parents=True, exist_ok=True)
        log_path = database.parent / "dbt-build.log"
        with log_path.open("w") as log:
            process = subprocess.Popen(
                **dbt_process(project, raw, database, *REFRESH), stdout=log, stderr=subprocess.STDOUT
            )
            waited_on_pipe = False
            deadline = time.monotonic() + 600
            try:
                while process.poll() is None:
                    assert time.monotonic() < deadline, "dbt build did not finish in 10 minutes"
                    try:
                        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    except OSError as error:
                        assert error.errno == errno.ENXIO  # nobody has the pipe open for reading
                        time.sleep(0.2)
                        continue
                    waited_on_pipe = True
                    os.close(writer)
                    time.sleep(0.2)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
    output = log_path.read_text()
    return PipedOutcome(
        subprocess.CompletedProcess(process.args, process.returncode, output, ""), database, waited_on_pipe
    )


@prebuilt()
def filesystem_build(builds: Prebuilds) -> PipedOutcome:
    files = {name: good_run(run_id) for name, run_id in ODD_NAMES.items()}
    raw, database = scratch(builds, "filesystem", {**files, **GLOB_FILES, **PIPE_NEIGHBOUR})
    (raw / "empty-folder.jsonl").mkdir()
    os.symlink(raw, raw / "loop")  # a symlink loop: raw/loop/loop/loop/...
    os.symlink(raw, raw / "loop.jsonl")  # the same, with a log's name
    os.symlink("/nonexistent/target.jsonl", raw / "dangling.jsonl")
    os.mkfifo(raw / "pipe.jsonl")
    return build_watching_the_pipe(raw, database, raw / "pipe.jsonl")


@pytest.fixture(scope="module")
def fs_db(filesystem_build):
    filesystem_build.assert_passed()
    with duckdb.connect(str(filesystem_build.database), read_only=True) as connection:
        yield connection


def test_the_files_read_are_exactly_the_logs(fs_db):
    """...and the named pipe, which test_named_pipe_does_not_block_the_build checks."""
    found = {r["file_path"] for r in rows(fs_db, "select file_path from agg_file_data_quality")}
    assert found - {"pipe.jsonl"} == {*ODD_NAMES, *GLOB_FILES, *PIPE_NEIGHBOUR, "dangling.jsonl"}


@pytest.mark.parametrize("file_path", list(ODD_NAMES), ids=repr)
def test_odd_file_name_is_loaded_and_shown_as_written(fs_db, file_path):
    assert_file_lines(fs_db, file_path, 4, under_test=set())
    assert_good_run(fs_db, ODD_NAMES[file_path])
    events = fs_db.execute("select count(*) from fct_events where file_path = ?", [file_path]).fetchone()
    assert events == (4,)


def test_symlink_loop_is_not_followed(fs_db):
    looped = fs_db.execute("select count(*) from agg_file_data_quality where file_path like 'loop%'").fetchone()
    assert looped == (0,)
    assert fs_db.execute("select count(*) from fct_runs").fetchone() == (len(FILESYSTEM_RUNS),)


def test_dangling_symlink_is_counted_with_a_read_error(fs_db):
    row = one(fs_db, "select * from agg_file_data_quality where file_path = 'dangling.jsonl'")
    assert row["read_error"] is not None and row["read_error"].startswith("unreadable")
    assert (row["physical_lines"], row["lines_read"], row["accepted"], row["rejected"]) == (0, 0, 0, 0)


def test_file_names_with_glob_characters_are_read_as_themselves(filesystem_build):
    filesystem_build.assert_passed()
    with duckdb.connect(str(filesystem_build.database), read_only=True) as db:
        for file_path, lines in GLOB_FILES.items():
            assert_file_lines(db, file_path, len(lines), under_test=set())
        assert_good_run(db, "good-plain")
        assert_good_run(db, "good-star-sibling")
        assert run_row(db, "bracketed")["wall_seconds"] == 60.0
        assert run_row(db, "starred")["wall_seconds"] == 60.0


def test_named_pipe_does_not_block_the_build(filesystem_build):
    filesystem_build.assert_passed()
    assert not filesystem_build.waited_on_pipe, "the build opened the named pipe and waited for a writer"
    with duckdb.connect(str(filesystem_build.database), read_only=True) as db:
        assert_good_run(db, "good-fifo")
        pipe = rows(db, "select * from agg_file_data_quality where file_path = 'pipe.jsonl'")
        assert pipe == [] or pipe[0]["read_error"] is not None, "the pipe is ignored or named with a read error"
