"""The columns many models carry are described once (models/_common__docs.md, doc blocks `col_*`)
and every YAML that has such a column quotes its block: a column of that name that means something
else is listed here with what it means instead."""

from __future__ import annotations

import re

import yaml

from tests.support.pipeline import REPO

MODELS = REPO / "models"
SHARED = ("computed_at", "run_id", "collection", "task")
# (model or source table, column): what the column holds there instead of the shared meaning
MEANS_ELSE = {
    ("int_run_groups", "collection"): "the collection as the build saw it, to find what moved",
    ("int_run_groups", "task"): "the task as the build saw it, to find what moved",
    ("int_event_occurrences", "collection"): "a run_start line's own collection, on that line only",
    ("int_event_occurrences", "task"): "a run_start line's own task, on that line only",
    ("int_marker_peer_statistics", "collection"): "the peers' collection",
    ("int_marker_peer_statistics", "task"): "the peers' task, NULL for the collection peer set",
    ("int_run_eta_replays", "run_id"): "the completed run replayed",
    ("int_task_eta_range_scales", "task"): "NULL for the collection set",
    ("int_utilization_samples", "run_id"): "the run a sample line names, before it is checked",
    ("dim_collections", "collection"): "the collection itself",
    ("cmp_collection_wall_time_parts", "task"): "NULL for scope all_tasks",
    ("cmp_collection_step_parts", "task"): "NULL for scope all_tasks",
    ("cmp_task_runtime", "task"): "a task with runs on both sides",
    ("fct_duplicate_lines", "collection"): "the collection of the run a line names",
    ("fct_duplicate_lines", "task"): "the task of the run a line names",
    ("fct_rejected_lines", "run_id"): "the run a rejected line names, if it parses that far",
    ("fct_rejected_lines", "collection"): "the collection of the run a line names",
    ("fct_rejected_lines", "task"): "the task of the run a line names",
    ("fct_events", "collection"): "the run's, on every event, whatever a later run_start names",
    ("fct_events", "task"): "the run's, on every event, whatever a later run_start names",
    ("fct_other_events", "run_id"): "the run a line names",
    ("fct_other_events", "collection"): "the collection of the run a line names",
    ("fct_other_events", "task"): "the task of the run a line names",
    ("fct_traces", "run_id"): "NULL for a trace that could not be read",
    ("fct_traces", "collection"): "a trace's run's, or the folder of a trace on its own",
    ("fct_traces", "task"): "a trace's run's, or the name of a trace on its own",
    ("collections", "collection"): "a row of the collections file",
    ("stg_log_lines", "run_id"): "the run a line names",
    ("stg_log_lines", "collection"): "a run_start line's own collection",
    ("stg_log_lines", "task"): "a run_start line's own task",
    ("stg_collections", "collection"): "the collection as the run_start lines write it",
}


def shared_columns() -> list[tuple[str, str, str, str]]:
    """(YAML file, model or table, column, description) of every shared column."""
    found = []
    for path in sorted(MODELS.rglob("_*.yml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        tables = list(document.get("models") or [])
        for source in document.get("sources") or []:
            tables += source.get("tables") or []
        for table in tables:
            for column in table.get("columns") or []:
                if column["name"] in SHARED:
                    description = " ".join(str(column.get("description", "")).split())
                    found.append((path.name, table["name"], column["name"], description))
    return found


def test_every_shared_column_quotes_its_block_or_says_what_it_means_instead():
    blocks = set(re.findall(r"{% docs (col_\w+) %}", (MODELS / "_common__docs.md").read_text(encoding="utf-8")))
    assert blocks == {f"col_{name}" for name in SHARED}
    unquoted = [
        (file, table, column, description[:80])
        for file, table, column, description in shared_columns()
        if f'doc("col_{column}")' not in description and (table, column) not in MEANS_ELSE
    ]
    assert not unquoted, unquoted
    quoted_elsewhere = [
        (table, column)
        for _, table, column, description in shared_columns()
        if (table, column) in MEANS_ELSE and f'doc("col_{column}")' in description
    ]
    assert not quoted_elsewhere, quoted_elsewhere  # the list names only columns that mean something else


def test_computed_at_is_one_text():
    """Before, `computed_at` was described in six wordings; now every one quotes the block."""
    texts = {description for _, _, column, description in shared_columns() if column == "computed_at"}
    assert texts and all(text.startswith('{{ doc("col_computed_at") }}') for text in texts), texts
