"""Run a recorded plan of dbt (plan.py) in one DuckDB connection, at the engine's pace.

The connection is made as dbt-duckdb makes its own for the profile: an in-memory database with
the profile's settings, the database file attached as the catalog `runlens` with DuckDB's limits
(runlens/refresh/database.py). The reader brings the raw tables in step with the raw folder first
(raw_logs/duckdb_reader.py), as the dbt-duckdb plugin does when dbt connects; then every node's
statements run in dbt's order, each node in a transaction of its own, committed when it ends (as
dbt-duckdb commits each node): DuckDB plans a query over tables written earlier in the same
transaction without their statistics, and a join it cannot size can cost 15x (int_run_eta_replays
at 200k runs: 66 s over its inputs uncommitted, 4.1 s committed; docs/performance.md, "One
transaction per node"). A data test fails as dbt fails it: its query's should_error on a test of
severity error (should_warn is a warning). The first error stops the run and undoes its node; the
caller then throws the database copy away, the nodes before it with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import yaml

from runlens.raw_logs.duckdb_reader import refresh
from runlens.raw_logs.raw_tables import raw_schema
from runlens.refresh.database import attach_database, close_attached
from runlens.refresh.plan import Plan, statement_kind

TARGET_SCHEMA = "main"  # dbt-duckdb's schema for the profile (profiles.yml names none)
READ_ONLY = {"select", "with", "describe", "show", "pragma"}


@dataclass
class NodeRun:
    unique_id: str
    status: str  # success, pass, warn, fail, error
    seconds: float
    message: str | None = None


@dataclass
class PlanRun:
    success: bool
    seconds: float
    nodes: list[NodeRun] = field(default_factory=list)
    # where the seconds outside the nodes went: reading the raw folder, committing the transaction
    # (DuckDB writes the changed tables out then), and closing the database
    phases: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def profile_settings(project: Path) -> dict[str, str]:
    """The DuckDB settings the profile's duckdb target names."""
    profiles = yaml.safe_load((project / "profiles.yml").read_text(encoding="utf-8"))
    return dict(profiles["runlens"]["outputs"]["duckdb"].get("settings") or {})


def connect(project: Path) -> duckdb.DuckDBPyConnection:
    """A connection like dbt's: the profile's settings, the database (RUNLENS_DB) attached."""
    connection = duckdb.connect(":memory:")
    connection.execute("set enable_progress_bar = false")
    for name, value in profile_settings(project).items():
        connection.execute(f"set {name} = '{value}'")
    attach_database(connection)
    return connection


def allow_vacuum(connection: duckdb.DuckDBPyConnection, allowed: bool) -> None:
    """Whether DuckDB's checkpoints (at the commit, and when the database is closed) may compact
    the tables' row groups, rewriting them (runlens/refresh/dbt_build.py, VACUUM_EVERY)."""
    connection.execute("reset max_vacuum_tasks" if allowed else "set max_vacuum_tasks = 0")


def run_test(connection: duckdb.DuckDBPyConnection, sql: str, severity: str | None) -> tuple[str, str | None]:
    result = connection.execute(sql)
    columns = [column[0] for column in result.description or []]
    if "failures" not in columns:
        return "pass", None
    row = dict(zip(columns, result.fetchone(), strict=True))
    if row.get("should_error") and severity == "error":
        return "fail", f"{row['failures']} failing rows"
    if row.get("should_warn"):
        return "warn", f"{row['failures']} failing rows"
    return "pass", None


def run_node(
    connection: duckdb.DuckDBPyConnection, statements: list[str], severity: str | None
) -> tuple[str, str | None]:
    """A node's statements; a data test's status from its query. A model's queries that only
    read (dbt asking the database what it has, to decide what to run) are not run again: the plan
    holds what dbt decided."""
    if severity is None:
        for sql in statements:
            if statement_kind(sql) not in READ_ONLY:
                connection.execute(sql)
        return "success", None
    status, message = "pass", None
    for sql in statements:
        test_status, test_message = run_test(connection, sql, severity)
        if test_status != "pass":
            status, message = test_status, test_message
    return status, message


def run_plan(
    plan: Plan, connection: duckdb.DuckDBPyConnection, raw_dir: str, *, full: bool = False, clock_only: bool = False
) -> PlanRun:
    """Read the raw folder and run the plan on the connection's database (connect), each node in a
    transaction of its own: the first error or failing test stops it and undoes that node (the
    caller throws the copy away). The commits' seconds are the phase `commit`. clock_only: only
    the as-of time moved since the database's last build (dbt_build.py, only_the_clock_moved), so
    only the nodes that follow it run (PlanNode.follows_clock); the others would give the rows they
    hold."""
    started = time.perf_counter()
    run = PlanRun(success=True, seconds=0.0)
    refresh(connection, raw_dir, raw_schema(TARGET_SCHEMA), full=full)
    run.phases["reading"] = time.perf_counter() - started
    committing = 0.0
    connection.execute("begin transaction")
    for sql in plan.prologue:
        if statement_kind(sql) not in READ_ONLY:
            connection.execute(sql)
    for node in plan.nodes:
        if clock_only and not node.follows_clock:
            continue
        node_started = time.perf_counter()
        try:
            status, message = run_node(connection, node.statements, node.severity)
        except duckdb.Error as error:
            status, message = "error", str(error)
        run.nodes.append(NodeRun(node.unique_id, status, time.perf_counter() - node_started, message))
        if status in ("error", "fail"):
            run.success = False
            run.errors.append(f"{status} in {node.unique_id}: {message}")
            break
        commit_started = time.perf_counter()
        connection.execute("commit")
        connection.execute("begin transaction")
        committing += time.perf_counter() - commit_started
    commit_started = time.perf_counter()
    connection.execute("commit" if run.success else "rollback")
    run.phases["commit"] = committing + time.perf_counter() - commit_started
    run.seconds = time.perf_counter() - started
    return run


def disconnect(connection: duckdb.DuckDBPyConnection) -> None:
    """Detach the database file (written out and closed now) and close the connection."""
    close_attached()
    connection.close()
