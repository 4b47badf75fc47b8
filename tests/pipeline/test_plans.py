"""dbt's recorded plan, run again at the engine's pace (issue 29: runlens/refresh/plan.py, plan_runner.py,
dbt_build.py), gives the marts dbt gives, built whole and refreshed, on every fixture.

For each fixture (the sample, the faulty logs, the runs with ranks), from a copy of its folder:
- dbt itself (a plain `dbt build`, node by node) builds it whole, then, after changes (a new file,
  a file that grows by a resumed session, a file deleted, and for ranks a rank's file that comes
  late), refreshes it;
- `runlens build` does the same from dbt's plans (it says so in its timings), in another database;
- every mart is compared row for row after each build; then a plain `dbt build` over the plans'
  database, and a `runlens build` over dbt's, change nothing.

The plans are recorded once for the session (`plans_recorded`): a build of an empty database and
one of a built database, whatever the fixture, as a user's first two builds record them. A plan
serves only the situation it was recorded in: other vars, an edited project, a database of
another shape and RUNLENS_PLANS=off run dbt, and a failing data test fails a run of the plan.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from runlens.raw_logs.as_of import SAMPLE_AS_OF
from runlens.refresh.dbt_build import VACUUM_EVERY
from runlens.refresh.dbt_session import project_content
from runlens.refresh.plan import PROJECT_PLACEHOLDER, Plan, PlanStore, plan_inputs
from tests.support.mart_snapshots import bump_mtime, snapshot
from tests.support.pipeline import (
    DATABASE,
    FAULTY,
    REFRESH,
    REPO,
    RUNLENS,
    SAMPLE,
    Project,
    build,
    copy_database,
    copy_project,
)
from tests.support.prebuilt import Prebuilds, prebuilt

RANKS = REPO / "tests" / "generated" / "ranks"
LATE_RANK = "straggler/straggler.rank3.jsonl"
FIXTURES = {"sample": SAMPLE, "faulty": FAULTY, "ranks": RANKS}
PLANS_PROJECT = Project()


def runlens_build(raw: Path, database: Path, cache: Path, *args: str, env: dict | None = None) -> dict:
    """`runlens build` as a user runs it; returns its timings (which say whether it ran a plan)."""
    database.parent.mkdir(parents=True, exist_ok=True)
    timings = database.with_name(database.name + ".timings.json")
    result = subprocess.run(
        [str(RUNLENS), "build", "--logs", str(raw), "--db", str(database), "--timings", str(timings), *args],
        env={**os.environ, "RUNLENS_AS_OF": SAMPLE_AS_OF, "RUNLENS_CACHE_DIR": str(cache), **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(timings.read_text(encoding="utf-8"))


def first_line(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


def change(raw: Path, fixture: str) -> None:
    """A new file, a resumed session appended to a file, a file deleted; for ranks, a late rank."""
    logs = sorted(path for path in raw.rglob("*.jsonl") if not path.name.startswith(("_", ".")))
    start = next(first_line(path) for path in logs if first_line(path).get("event") == "run_start")
    (raw / "added.jsonl").write_text(
        json.dumps({**start, "run_id": "added-run", "ts": "2025-01-05T00:00:00Z"})
        + "\n"
        + json.dumps({"run_id": "added-run", "event": "run_end", "ts": "2025-01-05T00:30:00Z"})
        + "\n"
    )
    resumed = next(path for path in logs if first_line(path).get("event") == "run_start")
    run_id = first_line(resumed)["run_id"]
    with resumed.open("a") as grown:
        grown.write(json.dumps({"run_id": run_id, "event": "run_start", "ts": "2026-01-01T00:00:00Z"}) + "\n")
        grown.write(json.dumps({"run_id": run_id, "event": "run_end", "ts": "2026-01-01T00:10:00Z"}) + "\n")
    bump_mtime(resumed)
    next(path for path in reversed(logs) if path != resumed).unlink()
    if fixture == "ranks":
        shutil.copy2(RANKS / LATE_RANK, raw / LATE_RANK)


def fixture_copy(folder: Path, fixture: str) -> Path:
    raw = folder / "raw"
    shutil.copytree(FIXTURES[fixture], raw)
    if fixture == "ranks":
        (raw / LATE_RANK).unlink()  # it comes late (change)
    return raw


@prebuilt()
def plans_recorded(builds: Prebuilds) -> Path:
    """The session's runlens cache folder with the plans of a first build and of a refresh."""
    cache = builds.mktemp("plans_cache")
    root = builds.mktemp("plans_recording")
    raw = fixture_copy(root, "faulty")
    assert runlens_build(raw, root / DATABASE, cache)["replayed"] == [False]
    (raw / "one-more.jsonl").write_text((raw / "alpha" / "plain.jsonl").read_text())  # something to refresh
    assert runlens_build(raw, root / DATABASE, cache)["replayed"] == [False]
    return cache


@pytest.fixture(scope="module", params=sorted(FIXTURES))
def both_ways(request, plans_recorded, tmp_path_factory):
    """A fixture built whole and refreshed by dbt and by the plans: the marts after each build,
    whether each runlens build ran a plan, and the two databases."""
    fixture = request.param
    dbt_folder, plan_folder = tmp_path_factory.mktemp(f"dbt_{fixture}"), tmp_path_factory.mktemp(f"plan_{fixture}")
    dbt_raw, plan_raw = fixture_copy(dbt_folder, fixture), fixture_copy(plan_folder, fixture)
    dbt_db, plan_db = dbt_folder / DATABASE, plan_folder / DATABASE
    marts, replayed = {}, []
    build(PLANS_PROJECT, dbt_raw, dbt_db, planned=False)
    replayed += runlens_build(plan_raw, plan_db, plans_recorded)["replayed"]
    marts["whole"] = snapshot(dbt_db), snapshot(plan_db)
    change(dbt_raw, fixture)
    change(plan_raw, fixture)
    build(PLANS_PROJECT, dbt_raw, dbt_db, planned=False)
    replayed += runlens_build(plan_raw, plan_db, plans_recorded)["replayed"]
    marts["refreshed"] = snapshot(dbt_db), snapshot(plan_db)
    return {
        "fixture": fixture,
        "marts": marts,
        "replayed": replayed,
        "dbt": (dbt_raw, dbt_db),
        "plan": (plan_raw, plan_db),
    }


@pytest.mark.parametrize("when", ["whole", "refreshed"])
def test_the_plans_give_every_mart_dbt_gives(both_ways, when):
    assert both_ways["replayed"] == [True, True], "runlens build ran dbt, not its plan"
    by_dbt, by_plan = both_ways["marts"][when]
    assert by_plan.keys() == by_dbt.keys()
    for table in by_dbt:
        assert by_plan[table] == by_dbt[table], f"{both_ways['fixture']}, {when}: {table} differs"
    assert sum(len(rows) for rows in by_dbt.values()) > 20


def test_dbt_after_the_plans_and_the_plans_after_dbt_change_nothing(both_ways, plans_recorded, tmp_path):
    by_dbt, _ = both_ways["marts"]["refreshed"]
    plan_raw, plan_db = both_ways["plan"]
    build(PLANS_PROJECT, plan_raw, plan_db, planned=False)  # a plain dbt build over the plans' database
    assert snapshot(plan_db) == by_dbt
    dbt_raw, dbt_db = both_ways["dbt"]
    copy = copy_database(dbt_db, tmp_path / "copy")
    assert runlens_build(dbt_raw, copy, plans_recorded)["replayed"] == [True]
    assert snapshot(copy) == by_dbt


# --------------------------------------------------------------------------------------------
# a plan serves its own situation only


@pytest.fixture
def built(plans_recorded, tmp_path):
    raw = fixture_copy(tmp_path, "faulty")
    runlens_build(raw, tmp_path / DATABASE, plans_recorded)
    return raw, tmp_path / DATABASE


def test_other_vars_run_dbt(built, plans_recorded):
    raw, database = built
    timings = runlens_build(raw, database, plans_recorded, "--", "--vars", "{stall_multiple: 4}")
    assert timings["replayed"] == [False]


def test_plans_off_runs_dbt(built, plans_recorded):
    raw, database = built
    assert runlens_build(raw, database, plans_recorded, env={"RUNLENS_PLANS": "off"})["replayed"] == [False]


def test_a_database_of_another_shape_runs_dbt(built, plans_recorded):
    raw, database = built
    with duckdb.connect(str(database)) as connection:
        connection.execute("drop table fct_run_throughput")  # a table dbt would make again
    timings = runlens_build(raw, database, plans_recorded)
    assert timings["replayed"] == [False]
    with duckdb.connect(str(database), read_only=True) as connection:
        assert connection.execute("select count(*) from fct_run_throughput").fetchone()[0] > 0


def test_an_edited_project_finds_no_plan(plans_recorded, tmp_path):
    """A copy of the project, and then the same copy with one model file edited: the plans
    recorded for the first do not serve the second."""
    project = copy_project(tmp_path / "project")
    store = PlanStore(tmp_path / "plans")
    inputs = plan_inputs(project_content(project), REFRESH)
    store.save(Plan({**inputs, "env": {}}, "state"))
    assert store.find(inputs, "state") is not None
    model = project / "models" / "marts" / "runs" / "fct_runs.sql"
    model.write_text(model.read_text() + "\n")
    assert store.find(plan_inputs(project_content(project), REFRESH), "state") is None
    assert store.find(inputs, "another state") is None


def test_a_copy_of_the_project_elsewhere_runs_the_plans_another_copy_recorded(built, plans_recorded, tmp_path):
    """Plans are keyed by the project's content, not by where it is or when its files were
    written: a copy of the project in another folder, its files' times changed, runs the plans the
    checkout recorded, whose statements name the project's folder by a placeholder (the seeds'
    loads), and gives the same marts."""
    raw, database = built
    saved = [path.read_text(encoding="utf-8") for path in plans_recorded.glob("plans/*.json")]
    assert saved and all(str(REPO) not in text for text in saved)
    assert any(f"{PROJECT_PLACEHOLDER}/seeds/" in text for text in saved)
    project = copy_project(tmp_path / "elsewhere" / "project")
    for model in (project / "models").rglob("*.sql"):
        os.utime(model, (1_000_000_000, 1_000_000_000))
    copy = copy_database(database, tmp_path / "copy")
    (raw / "one-more.jsonl").write_text(
        (raw / "alpha" / "plain.jsonl").read_text().replace('"run_id": "', '"run_id": "x-')
    )
    timings = runlens_build(raw, copy, plans_recorded, env={"RUNLENS_PROJECT_DIR": str(project)})
    assert timings["replayed"] == [True]
    assert runlens_build(raw, database, plans_recorded)["replayed"] == [True]
    assert snapshot(copy) == snapshot(database)


def tampered_cache(plans_recorded: Path, folder: Path) -> Path:
    """A copy of the session's cache whose plans' data test of stg_collections finds a failing row."""
    cache = folder / "cache"
    shutil.copytree(plans_recorded, cache)
    for path in cache.glob("plans/*.json"):
        plan = json.loads(path.read_text(encoding="utf-8"))
        for node in plan["nodes"]:
            if node["unique_id"].startswith("test.runlens.runlens_primary_key_stg_collections"):
                node["statements"] = ["select 1 as failures, true as should_warn, true as should_error"]
        path.write_text(json.dumps(plan), encoding="utf-8")
    return cache


def test_a_failing_data_test_fails_the_plan_and_keeps_the_database(built, plans_recorded, tmp_path):
    raw, database = built
    before = snapshot(database)
    (raw / "added.jsonl").write_text(
        '{"run_id": "x", "event": "run_start", "ts": "2025-01-09T00:00:00Z", "collection": "c", "task": "t"}\n'
    )
    result = subprocess.run(
        [str(RUNLENS), "build", "--logs", str(raw), "--db", str(database)],
        env={
            **os.environ,
            "RUNLENS_AS_OF": SAMPLE_AS_OF,
            "RUNLENS_CACHE_DIR": str(tampered_cache(plans_recorded, tmp_path)),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "fail in test.runlens.runlens_primary_key_stg_collections" in result.stderr, result.stderr
    assert f"runlens: dbt build failed; {database} still holds the previous build" in result.stderr
    assert snapshot(database) == before
    assert not database.with_name(database.name + ".next").exists()


def refreshes_since_vacuum(database: Path) -> int:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.execute("select refreshes_since_vacuum from main_raw.last_build").fetchone()[0]


def test_plan_refreshes_leave_compaction_to_every_tenth(built, plans_recorded):
    """A plan refresh leaves DuckDB's compaction of the tables' row groups out and counts itself;
    the VACUUM_EVERY-th refresh compacts and starts the count over (runlens/refresh/dbt_build.py)."""
    raw, database = built
    assert refreshes_since_vacuum(database) == 0  # a first build compacts
    template = (raw / "alpha" / "plain.jsonl").read_text()
    for refresh in range(1, VACUUM_EVERY):
        (raw / f"more-{refresh}.jsonl").write_text(template.replace('"run_id": "', f'"run_id": "more{refresh}-'))
        assert runlens_build(raw, database, plans_recorded)["replayed"] == [True]
        assert refreshes_since_vacuum(database) == refresh
    (raw / "more-last.jsonl").write_text(template.replace('"run_id": "', '"run_id": "more-last-'))
    assert runlens_build(raw, database, plans_recorded)["replayed"] == [True]
    assert refreshes_since_vacuum(database) == 0


def test_each_node_of_a_plan_commits_before_the_next_reads_it(tmp_path, monkeypatch):
    """A plan's node runs in a transaction of its own, as dbt-duckdb runs a node: the next node's
    queries read committed tables, which DuckDB plans with their statistics (a query over tables
    of its own transaction can cost 15x: runlens/refresh/plan_runner.py). A failing node is undone,
    the nodes before it stay (the caller throws the copy away)."""
    from runlens.refresh import plan_runner
    from runlens.refresh.plan import PlanNode

    raw = tmp_path / "logs"
    raw.mkdir()
    database = tmp_path / "plan.duckdb"
    monkeypatch.setenv("RUNLENS_DB", str(database))
    node = "create table runlens.main.{name} as select txid_current() as transaction_id"
    plan = Plan(
        inputs={},
        database_state="",
        nodes=[
            PlanNode("model.runlens.first", [node.format(name="first")]),
            PlanNode("model.runlens.second", [node.format(name="second")]),
            PlanNode(
                "model.runlens.broken",
                [node.format(name="broken"), "insert into runlens.main.first select no_such_column"],
            ),
        ],
    )
    connection = plan_runner.connect(REPO)
    try:
        run = plan_runner.run_plan(plan, connection, str(raw))
        tables = connection.execute(
            "select table_name from information_schema.tables where table_catalog = 'runlens' "
            "and table_schema = 'main' order by table_name"
        ).fetchall()
        first, second = (
            connection.execute(f"select transaction_id from runlens.main.{name}").fetchone()[0]
            for name in ("first", "second")
        )
    finally:
        plan_runner.disconnect(connection)
    assert not run.success
    assert [node_run.status for node_run in run.nodes] == ["success", "success", "error"]
    assert first != second
    assert tables == [("first",), ("second",)]


def test_a_build_where_only_the_clock_moved_runs_what_follows_it_and_gives_a_whole_builds_marts(
    plans_recorded, tmp_path
):
    """Nothing in the folder changed, only the as-of time (as users run runlens: not pinned, so
    every build moves it): the plan runs only the nodes that follow the clock (plan.py,
    clock_followers; dbt_build.py, only_the_clock_moved), and the marts equal a whole build's as of
    the same time. The sample has a live sweep, whose figures move with the as-of time."""
    later = "2025-03-10T15:30:00Z"  # three and a half hours after SAMPLE_AS_OF
    raw = fixture_copy(tmp_path / "moved", "sample")
    database, reference = tmp_path / "moved" / DATABASE, tmp_path / "reference" / DATABASE
    assert runlens_build(raw, database, plans_recorded)["replayed"] == [True]
    before = snapshot(database)

    timings = runlens_build(raw, database, plans_recorded, env={"RUNLENS_AS_OF": later})

    assert timings["replayed"] == [True]
    ran = {result["unique_id"] for result in timings["results"]}
    assert {"model.runlens.stg_build_context", "model.runlens.dim_build", "model.runlens.fct_run_live_status"} <= ran
    assert not ran & {"model.runlens.stg_log_lines", "model.runlens.fct_runs", "model.runlens.fct_run_intervals"}
    assert runlens_build(raw, reference, plans_recorded, env={"RUNLENS_AS_OF": later})["replayed"] == [True]
    after, whole = snapshot(database), snapshot(reference)
    assert before["fct_run_live_status"] != after["fct_run_live_status"]
    assert after == whole
    with duckdb.connect(str(database), read_only=True) as connection:
        assert connection.execute("select as_of_at from dim_build").fetchone()[0].isoformat() == "2025-03-10T15:30:00"
