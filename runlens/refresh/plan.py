"""dbt's plan of a build: every SQL statement dbt ran for it, node by node, kept so that a later
build in the same situation runs it again at the engine's pace (plan_runner.py).

How a plan is recorded, and exactly when it serves a later build: docs/internals.md, "Plans".
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

PLAN_FORMAT = 3
# what stands for the project's folder in a plan's statements (dbt writes it into the seeds' loads):
# a plan recorded in one copy of the project runs in any other copy of the same content
PROJECT_PLACEHOLDER = "@@runlens_project_dir@@"
# characters SQL escapes in a literal: a project folder without them is written into a statement
# as it is, so every place it appears is found by its text
ESCAPED_IN_SQL = frozenset("'\"\\")
# the statements a runner manages itself: each node runs in a transaction of its own
TRANSACTION = re.compile(r"^\s*(begin|commit|rollback)\s*;?\s*$", re.IGNORECASE)
# dbt's comment before each statement it sends
QUERY_COMMENT = re.compile(r"^/\*.*?\*/\s*", re.DOTALL)
# the database state: every relation of the catalog the profile attaches, with its columns
STATE_QUERY = """
select table_schema, table_name, table_type, column_name, data_type, ordinal_position
from information_schema.tables
left join information_schema.columns using (table_catalog, table_schema, table_name)
where table_catalog = 'runlens'
order by all
"""


# The macros by which a model follows the as-of time (macros/build_context.sql, run_versions.sql):
# a node that calls one, directly or through another macro, or that depends on a node that does,
# follows the clock; the others give the same rows for the same raw tables whatever the time.
CLOCK_MACROS = frozenset(
    f"macro.runlens.{name}"
    for name in (
        "build_as_of",
        "build_as_of_source",
        "build_pinned_as_of",
        "is_run_to_compute_or_live",
        "delete_rows_of_changed_or_live_runs",
    )
)


# the raw table the reader rewrites at every build: its start, its raw folder, the pinned as-of time
CONTEXT_SOURCE = "source.runlens.runlens_raw.build_context"


@dataclass
class PlanNode:
    unique_id: str
    statements: list[str]
    severity: str | None = None  # a data test's: error or warn
    follows_clock: bool = True  # whether its rows can move with the as-of time alone (clock_followers)


@dataclass
class Plan:
    inputs: dict  # what dbt compiled it from (plan_inputs), environment variables included
    database_state: str  # the state of the database the build started from (database_state)
    prologue: list[str] = field(default_factory=list)  # dbt's statements before its first node
    nodes: list[PlanNode] = field(default_factory=list)

    def in_project(self, project: Path) -> Plan:
        """The plan with its statements pointing at project's folder (see PROJECT_PLACEHOLDER)."""
        return self.moved(PROJECT_PLACEHOLDER, str(project))

    def moved(self, old: str, new: str) -> Plan:
        def move(statements: list[str]) -> list[str]:
            return [sql.replace(old, new) for sql in statements]

        return Plan(
            self.inputs,
            self.database_state,
            move(self.prologue),
            [PlanNode(node.unique_id, move(node.statements), node.severity, node.follows_clock) for node in self.nodes],
        )

    def to_json(self) -> str:
        return json.dumps({"format": PLAN_FORMAT, **asdict(self)})

    @classmethod
    def from_json(cls, text: str) -> Plan | None:
        document = json.loads(text)
        if document.pop("format", None) != PLAN_FORMAT:
            return None
        document["nodes"] = [PlanNode(**node) for node in document["nodes"]]
        return cls(**document)


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def versions() -> dict[str, str]:
    from importlib.metadata import version

    return {package: version(package) for package in ("dbt-core", "dbt-duckdb", "duckdb")}


def plan_inputs(project_content: tuple, args: Sequence[str]) -> dict:
    """What a plan is compiled from, but the environment variables dbt read (known once parsed):
    the project's files by content (dbt_session.project_content, wherever the project is), the
    command line and the versions of dbt and DuckDB."""
    return {"project": digest(project_content), "args": list(args), "versions": versions()}


def portable(project: Path) -> bool:
    """Whether plans recorded in project can serve another copy of it (PORTABLE_PATH)."""
    return not ESCAPED_IN_SQL.intersection(str(project))


def environment_values(names) -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in sorted(names)}


def database_state(connection) -> str:
    """A digest of the relations of the database attached as `runlens`, with their columns."""
    return digest(connection.execute(STATE_QUERY).fetchall())


class PlanStore:
    """The plans of one project's cache folder: one file per inputs and database state."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find(self, inputs: dict, state: str) -> Plan | None:
        """The plan for these inputs and state whose environment variables have the values they have now."""
        if not self.folder.is_dir():
            return None
        for path in sorted(self.folder.glob(f"{digest(inputs)}-{state}-*.json")):
            try:
                plan = Plan.from_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, TypeError, KeyError):
                continue
            if plan is not None and plan.inputs.get("env") == environment_values(plan.inputs.get("env", {})):
                return plan
        return None

    def save(self, plan: Plan) -> Path:
        inputs = {key: value for key, value in plan.inputs.items() if key != "env"}
        path = self.folder / f"{digest(inputs)}-{plan.database_state}-{digest(plan.inputs.get('env', {}))[:12]}.json"
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        partial.write_text(plan.to_json(), encoding="utf-8")
        os.replace(partial, path)
        return path


class Recorder:
    """Records every statement dbt-duckdb sends while the block runs, with the node dbt ran."""

    def __init__(self) -> None:
        self.records: list[tuple[str | None, str]] = []
        self._lock = threading.Lock()
        self.bound = False  # a statement with bound parameters cannot be run again from its text

    @contextmanager
    def recording(self) -> Iterator[Recorder]:
        from dbt.adapters.duckdb.environments import local
        from dbt_common.events.contextvars import get_node_info

        wrapper = local.DuckDBCursorWrapper
        original = wrapper.execute
        recorder = self

        def execute(self, sql, bindings=None):
            with recorder._lock:
                recorder.records.append((get_node_info().get("unique_id"), sql))
                recorder.bound = recorder.bound or bindings is not None
            return original(self, sql, bindings)

        wrapper.execute = execute
        try:
            yield self
        finally:
            wrapper.execute = original

    def plan(self, inputs: dict, state: str, manifest) -> Plan | None:
        """The plan recorded, None when it cannot be run again (a statement with bound values)."""
        if self.bound:
            return None
        plan = Plan({**inputs, "env": environment_values(manifest.env_vars)}, state)
        followers = clock_followers(manifest)
        nodes: dict[str, PlanNode] = {}
        for unique_id, sql in self.records:
            if TRANSACTION.match(sql):
                continue
            if unique_id is None:
                if not nodes:
                    plan.prologue.append(sql)
                continue
            if unique_id not in nodes:
                node = manifest.nodes.get(unique_id)
                severity = (
                    str(node.config.severity).lower() if node is not None and node.resource_type == "test" else None
                )
                nodes[unique_id] = PlanNode(unique_id, [], severity, unique_id in followers)
            nodes[unique_id].statements.append(sql)
        plan.nodes = list(nodes.values())  # a node's first statement comes after its parents' last
        return plan


def clock_followers(manifest) -> set[str]:
    """The nodes of the manifest whose rows can change when only the as-of time moves: those that
    call a macro of CLOCK_MACROS (directly or through other macros) and every node downstream of
    one (tests included); and the models that read the build context itself (CONTEXT_SOURCE: the
    build's start and pinned time, which those macros read) with their own tests. Every model
    reads the build's start too, to stamp the rows it computes (computed_at, changed_at,
    loaded_at: macros/incremental_state.sql) and to test only those: a model that computes no
    row when its inputs did not change does not follow the clock through that stamp."""
    macros = manifest.macros
    following: dict[str, bool] = {}

    def macro_follows(name: str, seen: frozenset = frozenset()) -> bool:
        if name in CLOCK_MACROS:
            return True
        if name in following:
            return following[name]
        macro = macros.get(name)
        called = macro.depends_on.macros if macro is not None else []
        result = any(macro_follows(other, seen | {name}) for other in called if other not in seen)
        following[name] = result
        return result

    nodes = manifest.nodes
    followers: set[str] = set()
    pending = list(nodes)
    changed = True
    while changed:  # the node graph is small (hundreds): a fixed point is cheap and needs no order
        changed = False
        for unique_id in pending:
            if unique_id in followers:
                continue
            depends_on = nodes[unique_id].depends_on
            if any(macro_follows(name) for name in depends_on.macros) or any(
                parent in followers
                for parent in getattr(depends_on, "nodes", [])  # a seed's names macros only
            ):
                followers.add(unique_id)
                changed = True
    readers = {
        unique_id for unique_id, node in nodes.items() if CONTEXT_SOURCE in getattr(node.depends_on, "nodes", [])
    }
    tests_of_readers = {
        unique_id for unique_id, node in nodes.items() if getattr(node, "attached_node", None) in readers
    }
    return followers | readers | tests_of_readers


def statement_kind(sql: str) -> str:
    """The first word of a statement, after dbt's comment."""
    words = QUERY_COMMENT.sub("", sql).split(None, 1)
    return words[0].lower() if words else ""
