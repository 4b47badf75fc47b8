"""The marts over tests/fixtures/faulty against hand-computed figures.

Every expected figure lives in tests/fixtures/faulty/expected.json and is derived step by step in
tests/fixtures/faulty/EXPECTED.md. `faulty_db` (tests/conftest.py) builds the fixture with the real
`dbt build` and yields a read-only DuckDB connection.
"""

import json
from decimal import Decimal
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "faulty"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))

FILE_COLUMNS = ["physical_lines", "blank_lines", "lines_read", "accepted", "duplicates", "other_events", "rejected"]
RUN_COLUMNS = list(next(iter(EXPECTED["runs"].values())))
COLLECTION_COLUMNS = list(next(iter(EXPECTED["collections"].values())))
SECTION_COLUMNS = ["total_seconds", "share_of_wall", "mean_seconds_per_run"]


def rows(db, sql, *params):
    cur = db.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def one(db, sql, *params):
    found = rows(db, sql, *params)
    assert len(found) == 1, f"expected exactly one row, got {len(found)}: {sql} {params}"
    return found[0]


def check(actual, expected):
    """NULL is NULL, numbers within 1e-9, everything else equal."""
    if expected is None:
        assert actual is None
    elif isinstance(expected, bool):
        assert actual is expected or actual == expected
    elif isinstance(expected, (int, float)):
        assert actual is not None
        if isinstance(actual, Decimal):
            actual = float(actual)
        assert actual == pytest.approx(expected, rel=1e-9, abs=1e-9)
    else:
        assert actual == expected


# --- where every line ends up ---------------------------------------------------------------


def test_file_set(faulty_db):
    found = {r["file_path"] for r in rows(faulty_db, "select file_path from agg_file_data_quality")}
    assert found == set(EXPECTED["files"])


@pytest.mark.parametrize("column", FILE_COLUMNS)
@pytest.mark.parametrize("file_path", list(EXPECTED["files"]))
def test_file_quality(faulty_db, file_path, column):
    row = one(faulty_db, "select * from agg_file_data_quality where file_path = ?", file_path)
    check(row[column], EXPECTED["files"][file_path][column])


def test_line_totals(faulty_db):
    total = one(
        faulty_db,
        """
        select sum(physical_lines) as physical, sum(blank_lines) as blank, sum(lines_read) as read,
               sum(accepted) + sum(duplicates) + sum(other_events) + sum(rejected) as ended_up
        from agg_file_data_quality""",
    )
    non_blank = sum(f["physical_lines"] - f["blank_lines"] for f in EXPECTED["files"].values())
    assert non_blank == 56  # worked out in EXPECTED.md
    assert total["read"] == total["ended_up"] == non_blank
    assert total["physical"] == total["read"] + total["blank"]


def test_reject_set(faulty_db):
    found = sorted(
        (r["file_path"], r["line_number"], r["reject_reason"])
        for r in rows(faulty_db, "select * from fct_rejected_lines")
    )
    assert found == sorted((r["file"], r["line_number"], r["reason"]) for r in EXPECTED["rejects"])


@pytest.mark.parametrize("reject", EXPECTED["rejects"], ids=lambda r: f"{r['file']}:{r['line_number']}")
def test_reject_reason(faulty_db, reject):
    row = one(
        faulty_db,
        "select * from fct_rejected_lines where file_path = ? and line_number = ?",
        reject["file"],
        reject["line_number"],
    )
    assert row["reject_reason"] == reject["reason"]


def test_other_events(faulty_db):
    found = rows(
        faulty_db,
        "select * from fct_other_events order by file_path, line_number",
    )
    expected = EXPECTED["other_events"]
    assert [(r["file_path"], r["line_number"]) for r in found] == [(e["file_path"], e["line_number"]) for e in expected]
    for row, want in zip(found, expected, strict=True):
        assert row["other_event_id"] == f"{want['file_path']}:{want['line_number']}"
        assert str(row["event_at"]) == want["event_at"]
        for column in ("run_id", "event_type", "step", "epoch"):
            assert row[column] == want[column], column
        assert json.loads(row["raw_text"])["event"] == want["event_type"]  # the line itself is kept


def test_other_event_types(faulty_db):
    found = {r["event_type"]: r for r in rows(faulty_db, "select * from agg_build_other_events")}
    assert set(found) == set(EXPECTED["other_event_types"])
    for event_type, want in EXPECTED["other_event_types"].items():
        actual = {column: found[event_type][column] for column in want}
        actual.update({column: str(actual[column]) for column in ("first_event_at", "last_event_at")})
        assert actual == want, event_type


def test_unknown_event_names_name_the_type_they_resemble(faulty_db):
    found = {r["event_name"]: r for r in rows(faulty_db, "select * from agg_build_unknown_event_names")}
    assert set(found) == set(EXPECTED["unknown_event_names"])
    for name, want in EXPECTED["unknown_event_names"].items():
        assert {column: found[name][column] for column in want} == want
    row = one(faulty_db, "select * from fct_rejected_lines where reject_id = 'alpha/plain.jsonl:14'")
    assert (row["event_name"], row["resembles_event_type"]) == ("checkpint", "checkpoint")


def test_invalid_utf8_raw_text_keeps_bytes(faulty_db):
    row = one(faulty_db, "select raw_text from fct_rejected_lines where reject_reason = 'invalid_utf8'")
    assert "caf\\xE9" in row["raw_text"]


# --- runs and intervals ---------------------------------------------------------------------


def test_run_set(faulty_db):
    found = {r["run_id"] for r in rows(faulty_db, "select run_id from fct_runs")}
    assert found == set(EXPECTED["runs"])


@pytest.mark.parametrize("column", RUN_COLUMNS)
@pytest.mark.parametrize("run_id", list(EXPECTED["runs"]))
def test_run(faulty_db, run_id, column):
    row = one(faulty_db, "select * from fct_runs where run_id = ?", run_id)
    check(row[column], EXPECTED["runs"][run_id][column])


@pytest.mark.parametrize("run_id", list(EXPECTED["intervals"]))
def test_intervals(faulty_db, run_id):
    found = rows(faulty_db, "select * from fct_run_intervals where run_id = ? order by interval_index", run_id)
    expected = EXPECTED["intervals"][run_id]
    assert [r["label"] for r in found] == [e["label"] for e in expected]
    for got, want in zip(found, expected, strict=True):
        for column, value in want.items():
            check(got[column], value)


# --- statistics over runs -------------------------------------------------------------------


@pytest.mark.parametrize("column", COLLECTION_COLUMNS)
@pytest.mark.parametrize("collection", list(EXPECTED["collections"]))
def test_collection_runtime(faulty_db, collection, column):
    row = one(faulty_db, "select * from agg_collection_runtime where collection = ?", collection)
    check(row[column], EXPECTED["collections"][collection][column])


def test_profile_section_set(faulty_db):
    found = {
        (r["collection"], r["section"])
        for r in rows(faulty_db, "select collection, section from agg_collection_profile_sections")
    }
    assert found == {(c, s) for c, sections in EXPECTED["profile_sections"].items() for s in sections}


@pytest.mark.parametrize("column", SECTION_COLUMNS)
@pytest.mark.parametrize(
    "collection,section", [(c, s) for c, sections in EXPECTED["profile_sections"].items() for s in sections]
)
def test_profile_section(faulty_db, collection, section, column):
    row = one(
        faulty_db,
        "select * from agg_collection_profile_sections where collection = ? and section = ?",
        collection,
        section,
    )
    check(row[column], EXPECTED["profile_sections"][collection][section][column])


@pytest.mark.parametrize("column", list(EXPECTED["comparison"]))
def test_comparison(faulty_db, column):
    row = one(
        faulty_db, "select * from cmp_collection_runtime where collection = ?", EXPECTED["comparison"]["collection"]
    )
    check(row[column], EXPECTED["comparison"][column])


def test_config_differences(faulty_db):
    keys = ["collection", "baseline_collection", "config_key", "values", "baseline_values"]
    found = [
        {k: r[k] for k in keys}
        for r in rows(faulty_db, "select * from cmp_collection_config_differences order by config_key")
    ]
    assert found == EXPECTED["config_differences"]


def test_stragglers_worked_by_hand(faulty_db):
    """fixture/alpha, task classify: walls 1500, 2400, 2700, 3000, median 2550, so the slowest is
    3000 / 2550 = 1.18x, under 1.5x. Positions line up across resumed's restart: its 1200 s of
    downtime (step_100 -> run_start) is none, and its run_start -> step_200 (600 s) is position 2,
    step_100 -> step_200. Position 1 is 600 s in all three. Position 2 (plain 900.25, resumed
    600, tie 1425): median 900.25, deviations 0, 300.25, 524.75, MAD 300.25, so tie's z-score is
    524.75 / (1.4826 x 300.25) = 1.18. Position 3 (plain 299.75, resumed 300, tie 0): median
    299.75, MAD 0.25 floored at 0.1 x 299.75, so resumed's z-score is 0.25 / (1.4826 x 29.975)
    = 0.0056, its highest. No straggler."""
    rows = faulty_db.execute(
        "select run_id, wall_to_task_median, worst_interval_index, worst_interval_robust_z, is_straggler"
        " from fct_run_stragglers where collection = 'fixture/alpha' order by run_id"
    ).fetchall()
    got = {run_id: (ratio, index, z, straggler) for run_id, ratio, index, z, straggler in rows}
    assert set(got) == {"alpha-noepoch", "alpha-plain", "alpha-resumed", "alpha-tie"}
    assert got["alpha-resumed"][0] == pytest.approx(3000 / 2550)
    assert got["alpha-resumed"][1:3] == (3, pytest.approx(0.25 / (1.4826 * 0.1 * 299.75)))
    assert got["alpha-tie"][1:3] == (2, pytest.approx(524.75 / (1.4826 * 300.25)))
    assert got["alpha-noepoch"][1:3] == (None, None)  # no pre-epoch interval to score
    assert not any(straggler for *_, straggler in got.values())


def test_the_difference_is_not_split_without_markers_on_both_sides(faulty_db):
    """alpha-noepoch has no epoch_end and base-profonly only a profile: no pre-epoch markers."""
    flags = faulty_db.execute(
        "select distinct both_sides_have_markers from cmp_collection_wall_time_parts where collection = 'fixture/alpha'"
    ).fetchall()
    assert flags == [(False,)]
