"""dbt's build of a database, the fast way when it can be: the plan dbt ran for the same situation
(plan.py), run again in one connection (plan_runner.py); else dbt itself, node by node, in this
process (dbt_session.py), recording its plan for the next build.

The situation is what dbt's compiled SQL depends on: the project's files, dbt's command line, the
environment variables dbt read, and the database state (plan.py). A project just edited, other
vars, a database of another shape (the first build, a --full-refresh, a database an earlier runlens
made): dbt runs, and its plan serves the builds after it. `RUNLENS_PLANS=off` always runs dbt.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from runlens.raw_logs.raw_tables import TABLES, raw_schema
from runlens.refresh.dbt_session import DbtSession, Invocation, NodeResult, environment, project_content
from runlens.refresh.plan import (
    PROJECT_PLACEHOLDER,
    PlanStore,
    Recorder,
    database_state,
    digest,
    environment_values,
    plan_inputs,
    portable,
)
from runlens.refresh.plan_runner import TARGET_SCHEMA
from runlens.refresh.project import cache_root

PLANS_VARIABLE = "RUNLENS_PLANS"
# A plan refresh appends each changed table's new rows as a row group of their own; DuckDB's
# checkpoint would merge them into the table's last row groups at every commit, rewriting up to a
# row group per table (at 100k runs, 1 to 2 s of a refresh that computes 5 s). Plan refreshes leave
# that to every VACUUM_EVERY-th refresh (and every full build), which compacts what the others left.
VACUUM_EVERY = 10


def plans_enabled() -> bool:
    return os.environ.get(PLANS_VARIABLE, "on").strip().lower() not in ("off", "0", "false", "no")


def plan_store() -> PlanStore:
    """The plans of every project and location this cache root serves (project.py, cache_root):
    keyed by the project's content, a plan recorded in one copy of the project serves every copy."""
    return PlanStore(cache_root() / "plans")


def build_inputs(project: Path, args: Sequence[str]) -> dict:
    """What a build is compiled from (plan.plan_inputs); a project whose folder cannot stand in a
    plan's statements by its text (plan.portable) keys its plans by its folder too."""
    inputs = plan_inputs(project_content(project), list(args))
    if not portable(project):
        inputs["location"] = str(project)
    return inputs


def replayed_invocation(args: list[str], run) -> Invocation:
    """What a plan's run did, as a dbt command's Invocation."""
    invocation = Invocation(args, success=run.success, elapsed_seconds=run.seconds, replayed=True)
    invocation.results = [
        NodeResult(node.unique_id, node.unique_id.split(".", 1)[0], node.status, node.message, node.seconds)
        for node in run.nodes
    ]
    invocation.errors = list(run.errors)
    invocation.lines = list(run.errors)
    invocation.phases = dict(run.phases)
    return invocation


def built_from(inputs: dict, env_names) -> str:
    """What a build was compiled from, as last_build keeps it: the plan's inputs and the values
    of the environment variables dbt read."""
    return json.dumps({"inputs": digest(inputs), "env": environment_values(env_names)}, sort_keys=True)


def note_build(connection, inputs: dict, env_names, refreshes_since_vacuum: int = 0) -> None:
    """Note in the built database (attached as runlens) what its build was compiled from, the
    state it left and how many refreshes ago DuckDB last compacted it (raw_tables.py, last_build)."""
    schema = raw_schema(TARGET_SCHEMA)
    columns = ", ".join(f"{name} {kind}" for name, kind in TABLES["last_build"])
    connection.execute(f"create or replace table {schema}.last_build ({columns})")
    state = database_state(connection)
    connection.execute(
        f"insert into {schema}.last_build values (?, ?, ?)",
        [built_from(inputs, env_names), state, refreshes_since_vacuum],
    )


def refreshes_since_vacuum(connection) -> int | None:
    """How many plan refreshes the database had since its tables were last compacted; None when
    no build was noted (a new database): read before the reader empties last_build."""
    import duckdb

    try:
        row = connection.execute(
            f"select refreshes_since_vacuum from {raw_schema(TARGET_SCHEMA)}.last_build"
        ).fetchone()
    except duckdb.Error:
        return None
    return int(row[0]) if row and row[0] is not None else None


def only_the_clock_moved(connection, raw: Path, inputs: dict) -> bool:
    """Whether, since the database's last build (its last_build: read before the reader empties
    it), nothing but the as-of time can have moved: the same project, command line and environment
    (inputs), the same tables, and the raw folder as it was read then (its files, collections file
    and traces; raw_logs/duckdb_reader.py, folder_unchanged). Then only the plan's nodes that follow
    the clock need to run (plan.py, clock_followers)."""
    import duckdb

    from runlens.raw_logs.duckdb_reader import folder_unchanged

    schema = raw_schema(TARGET_SCHEMA)
    try:
        recorded = connection.execute(f"select inputs, database_state from {schema}.last_build").fetchall()
    except duckdb.Error:
        return False
    if len(recorded) != 1:
        return False
    (built, state), env_names = recorded[0], json.loads(recorded[0][0])["env"]
    if built != built_from(inputs, env_names) or state != database_state(connection):
        return False
    return folder_unchanged(connection, str(raw), schema, clock_may_move=True)


def up_to_date(session: DbtSession, raw: Path, database: Path, args: Sequence[str]) -> bool:
    """Whether a build would change nothing: the database was built by runlens from the same
    project, command line and environment, and the raw folder has not changed since (its files,
    collections file and pinned as-of time: raw_logs/duckdb_reader.py, folder_unchanged)."""
    if not plans_enabled() or not database.exists():
        return False
    import duckdb

    from runlens.raw_logs.duckdb_reader import folder_unchanged

    schema = raw_schema(TARGET_SCHEMA)
    inputs = build_inputs(session.project, args)
    try:
        with duckdb.connect(":memory:") as connection:
            connection.execute(f"attach '{database}' as runlens (read_only)")
            connection.execute("use runlens")
            recorded = connection.execute(f"select inputs, database_state from {schema}.last_build").fetchall()
            if len(recorded) != 1:
                return False
            (built, state), env_names = recorded[0], json.loads(recorded[0][0])["env"]
            if built != built_from(inputs, env_names) or state != database_state(connection):
                return False
            return folder_unchanged(connection, str(raw), schema)
    except duckdb.Error:
        return False


def build(
    session: DbtSession, raw: Path, database: Path, args: Sequence[str], env: Mapping[str, str | None]
) -> Invocation:
    """`dbt <args>` (a build) over raw into database: the recorded plan, or dbt recording one."""
    args = list(args)
    if not plans_enabled():
        return session.invoke(args, env=env)
    from runlens.refresh import plan_runner

    inputs = build_inputs(session.project, args)
    with environment({**env, "RUNLENS_DB": str(database)}):
        store = plan_store()  # the cache root of the build's environment
        connection = plan_runner.connect(session.project)
        try:
            state = database_state(connection)
            plan = store.find(inputs, state)
            if plan is not None:
                plan = plan.in_project(session.project)
                full = "--full-refresh" in args
                clock_only = not full and only_the_clock_moved(connection, raw, inputs)
                refreshes = refreshes_since_vacuum(connection)
                vacuum = full or refreshes is None or refreshes + 1 >= VACUUM_EVERY
                plan_runner.allow_vacuum(connection, vacuum)
                run = plan_runner.run_plan(plan, connection, str(raw), full=full, clock_only=clock_only)
                if run.success:
                    note_build(connection, inputs, plan.inputs["env"], 0 if vacuum else refreshes + 1)
        finally:
            closing = time.perf_counter()
            plan_runner.disconnect(connection)
    if plan is not None:
        invocation = replayed_invocation(args, run)
        invocation.phases["close"] = time.perf_counter() - closing
        return invocation
    recorder = Recorder()
    started = time.perf_counter()
    with recorder.recording():
        invocation = session.invoke(args, env={**env, "RUNLENS_DB": str(database)})
    if invocation.success and not invocation.results:  # a selection that matched no node: no plan of it
        return invocation
    if invocation.success and session.manifest is not None:
        plan = recorder.plan(inputs, state, session.manifest)
        if plan is not None:
            store.save(plan.moved(f"{session.project}/", f"{PROJECT_PLACEHOLDER}/"))
        with environment({"RUNLENS_DB": str(database)}):
            connection = plan_runner.connect(session.project)
            try:
                note_build(connection, inputs, session.manifest.env_vars)
            finally:
                plan_runner.disconnect(connection)
    invocation.elapsed_seconds = invocation.elapsed_seconds or time.perf_counter() - started
    return invocation
