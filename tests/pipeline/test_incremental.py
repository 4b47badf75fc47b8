"""Incremental refresh equals a full rebuild, row for row, after additions, appends, rewrites and
deletions of raw files (issue: fast at millions of events). Both tests start from a copy of the
faulty fixture's shared build (conftest.py, faulty_build): a refresh with nothing changed, then the
changes in steps; their builds are declared `@prebuilt()`."""

from __future__ import annotations

import gzip
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import duckdb

from tests.support.mart_snapshots import bump_mtime, copy_of_faulty_build, snapshot
from tests.support.pipeline import DATABASE, PROJECT, REFRESH, REPO, build, run_dbt
from tests.support.prebuilt import Prebuilds, prebuilt


def group_marts() -> list[str]:
    """The models incremental by task or collection (their config: runlens.incremental_config('task'
    or 'collection'), macros/model_config.sql and macros/run_groups.sql): rollups, the stragglers,
    and the intermediate peer summaries and ETA replays."""
    grains = re.compile(r"\{\{ config\(\*\*runlens\.incremental_config\(\s*'(task|collection)'")
    return sorted(path.stem for path in (REPO / "models").rglob("*.sql") if grains.search(path.read_text("utf-8")))


def recomputed_collections(database) -> dict[str, set[str]]:
    """For each mart incremental by task or collection: the collections of the rows the database's
    last build computed (computed_at is the build's start)."""
    with duckdb.connect(str(database), read_only=True) as connection:
        return {
            mart: {
                collection
                for (collection,) in connection.sql(
                    f"select distinct collection from {mart} where computed_at = "
                    "(select build_started_at from stg_build_context)"
                ).fetchall()
            }
            for mart in group_marts()
        }


def line(run_id, event, minute, **fields):
    import json

    return json.dumps({"run_id": run_id, "event": event, "ts": f"2025-01-01T09:{minute:02d}:00Z", **fields}) + "\n"


STEPS = {
    "add a file with a new run": lambda raw: (raw / "alpha" / "new.jsonl").write_text(
        line("alpha-new", "run_start", 0, collection="fixture/alpha", task="classify")
        + line("alpha-new", "epoch_end", 20)
        + line("alpha-new", "run_end", 30)
    ),
    "append to a file (the incomplete run ends)": lambda raw: (
        (raw / "alpha" / "tie.jsonl").open("a").write(line("alpha-incomplete", "run_end", 59)),
        bump_mtime(raw / "alpha" / "tie.jsonl"),
    ),
    "delete a file": lambda raw: (raw / "zz-dupes.jsonl").unlink(),
    "rewrite a gzip file": lambda raw: (
        (raw / "alpha" / "resumed-2.jsonl.gz").write_bytes(
            gzip.compress(line("alpha-resumed", "run_end", 50).encode(), mtime=0)
        ),
        bump_mtime(raw / "alpha" / "resumed-2.jsonl.gz"),
    ),
    "add a file that duplicates an existing line and sorts first": lambda raw: (raw / "aaa.jsonl").write_text(
        (raw / "alpha" / "plain.jsonl").read_text().splitlines()[0] + "\n"
    ),
    "empty a file": lambda raw: (
        (raw / "base" / "runs.jsonl").write_text(""),
        bump_mtime(raw / "base" / "runs.jsonl"),
    ),
}


# The changes above in two steps, each an incremental build compared with a full rebuild: every
# kind of change is made, and after each step every compared table is checked.
STEP_GROUPS = [
    ["add a file with a new run", "append to a file (the incomplete run ends)", "rewrite a gzip file"],
    ["delete a file", "add a file that duplicates an existing line and sorts first", "empty a file"],
]


def test_every_change_kind_is_in_a_step():
    assert sorted(change for group in STEP_GROUPS for change in group) == sorted(STEPS)


@dataclass(frozen=True)
class Compared:
    changes: list[str]
    incremental: dict[str, list]
    full: dict[str, list]
    recomputed: dict[str, set[str]]  # recomputed_collections of the incremental build
    peer_summaries: set[str]  # the collections of int_marker_peer_statistics after it


@dataclass(frozen=True)
class Refreshes:
    """A refresh with nothing changed (the loaded line rows and the compared tables before and
    after it), then the steps, each compared with a full rebuild."""

    unchanged_before: tuple[list, dict]
    unchanged_after: tuple[list, dict]
    unchanged_recomputed: dict[str, set[str]]  # recomputed_collections of the refresh
    steps: list[Compared]


def loaded_rows(database) -> list[tuple]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.sql("select rowid, file_path, line_number from stg_log_lines order by rowid").fetchall()


@prebuilt()
def refreshes(builds: Prebuilds) -> Refreshes:
    """On a copy of the faulty fixture's folder and database: a refresh with nothing changed; then
    each step's changes, an incremental build, and a full rebuild of the changed folder into another
    database (meanwhile, in another project copy)."""
    raw, incremental_db = copy_of_faulty_build(builds.result("faulty_build"), builds.mktemp("incremental"))
    before = loaded_rows(incremental_db), snapshot(incremental_db)
    build(PROJECT, raw, incremental_db)
    after = loaded_rows(incremental_db), snapshot(incremental_db)
    unchanged_recomputed = recomputed_collections(incremental_db)
    full_db = raw.parent / "full" / DATABASE
    steps = []
    for group in STEP_GROUPS:
        for step in group:
            STEPS[step](raw)
        with ThreadPoolExecutor(1) as background:
            full = background.submit(run_dbt, PROJECT, raw, full_db, *REFRESH, "--full-refresh")
            build(PROJECT, raw, incremental_db)
            result = full.result()
        assert result.returncode == 0, result.stdout[-3000:]
        with duckdb.connect(str(incremental_db), read_only=True) as connection:
            summaries = connection.sql("select collection from int_marker_peer_statistics").fetchall()
        steps.append(
            Compared(
                group,
                snapshot(incremental_db),
                snapshot(full_db),
                recomputed_collections(incremental_db),
                {collection for (collection,) in summaries},
            )
        )
    return Refreshes(before, after, unchanged_recomputed, steps)


def test_incremental_refresh_equals_full_rebuild(refreshes):
    for step in refreshes.steps:
        for table in step.full:
            assert step.incremental[table] == step.full[table], (
                f"after {step.changes}: {table} differs from a full rebuild"
            )


def test_refresh_with_nothing_changed_reads_no_file(refreshes):
    """A second build over unchanged files keeps every loaded line row in place (same rowids):
    no file was read again, and every mart is unchanged."""
    (before_rows, before), (after_rows, after) = refreshes.unchanged_before, refreshes.unchanged_after
    assert after_rows == before_rows
    assert after == before
    assert refreshes.unchanged_recomputed == dict.fromkeys(group_marts(), set())


def test_a_refresh_computes_again_only_the_groups_of_the_changed_runs(refreshes):
    """The first step changes only runs of fixture/alpha (a new run, the incomplete run's end, a
    rewritten resume): the marts incremental by task or collection compute alpha's rows again and
    keep the other collections' rows as the build before wrote them. The live runs' peer summaries
    (int_marker_peer_statistics) are computed again for alpha too, which has none after the step:
    its one live run ended (the fixture has no other live run)."""
    assert {"int_marker_peer_statistics", "int_run_eta_replays", "fct_run_stragglers"} <= set(group_marts())
    first = refreshes.steps[0]
    expected = dict.fromkeys(group_marts(), {"fixture/alpha"}) | {"int_marker_peer_statistics": set()}
    assert first.recomputed == expected, first.changes
    assert not first.peer_summaries
