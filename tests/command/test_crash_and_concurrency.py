"""Crash safety and concurrent use of `runlens build` (issue: trust under faults).

A build killed at a random moment leaves the previous marts readable and unchanged, and the next
build recovers without manual steps; a report or query during a build reads the previous build;
a second build started meanwhile stops with a one-line message naming the lock."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import duckdb
import pytest

from runlens.mart_catalog import compared_query
from runlens.raw_logs.as_of import SAMPLE_AS_OF
from runlens.report.render import render_reports
from tests.support.pipeline import (
    DATABASE,
    FAULTY,
    PROJECT,
    REFRESH,
    RUNLENS,
    copy_database,
    copy_project,
    rounded,
    run_dbt,
)
from tests.support.prebuilt import Prebuilds, prebuilt

MARTS = ["fct_runs", "fct_run_intervals", "agg_collection_runtime", "agg_file_data_quality", "cmp_collection_runtime"]
NEW_RUNS = "".join(
    f'{{"run_id": "late-{n}", "event": "{event}", "ts": "2025-01-02T00:{minute:02d}:00Z",'
    ' "collection": "fixture/alpha", "task": "classify"}\n'
    for n in range(40)
    for event, minute in (("run_start", 0), ("epoch_end", 20 + n % 30), ("run_end", 55))
)


def snapshot(database) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return {
            mart: rounded(
                connection.sql(
                    "select * exclude (modified_at) from agg_file_data_quality order by all"
                    if mart == "agg_file_data_quality"
                    else compared_query(mart)
                ).fetchall()
            )
            for mart in MARTS
        }


@prebuilt()
def first_build(builds: Prebuilds):
    """`runlens build`'s first build (no database yet) over a copy of the faulty fixture, with a
    project copy that has the fixture's collections seed (RUNLENS_PROJECT_DIR)."""
    root = builds.mktemp("crash")
    project = copy_project(root / "project")
    raw = root / "raw"
    shutil.copytree(FAULTY, raw)
    database = root / "db" / DATABASE
    database.parent.mkdir()
    assert finish(start_build(project, raw, database)).returncode == 0
    return project, raw, database


@pytest.fixture
def project(first_build, tmp_path):
    """The first build's folder and database, copied (the copies keep each file's size and
    modification time: to the database, the folder is unchanged)."""
    project, raw, database = first_build
    shutil.copytree(raw, tmp_path / "raw")
    return project, tmp_path / "raw", copy_database(database, tmp_path / "db")


def start_build(project, raw, database, *, by_dbt: bool = False) -> subprocess.Popen:
    """`runlens build` in a process of its own. by_dbt: dbt's own node-by-node build
    (RUNLENS_PLANS=off), which lasts long enough for a test to act while it runs; a plan recorded
    for this situation (plans are shared by every copy of the project) may replay the fixture's
    refresh within a second or two."""
    env = {**os.environ, "RUNLENS_AS_OF": SAMPLE_AS_OF, "RUNLENS_PROJECT_DIR": str(project)}
    if by_dbt:
        env["RUNLENS_PLANS"] = "off"
    return subprocess.Popen(
        [str(RUNLENS), "build", "--logs", str(raw), "--db", str(database)],
        cwd=database.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(process: subprocess.Popen) -> subprocess.CompletedProcess:
    stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_killed_build_leaves_previous_marts_and_the_next_build_recovers(project, tmp_path):
    project, raw, database = project
    before = snapshot(database)
    (raw / "alpha" / "late.jsonl").write_text(NEW_RUNS)
    full = tmp_path / "full" / DATABASE
    with ThreadPoolExecutor(1) as background:  # a full build of the changed folder, meanwhile
        full_build = background.submit(run_dbt, PROJECT, raw, full, *REFRESH)
        moment = random.Random(os.environ.get("RUNLENS_CRASH_SEED", "7")).uniform(1.0, 6.0)
        process = start_build(project, raw, database, by_dbt=True)
        time.sleep(moment)
        assert process.poll() is None, f"the build ended before the kill, {moment:.2f} s into it"
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        assert snapshot(database) == before, f"killed {moment:.2f} s into the build, the marts changed"
        assert finish(start_build(project, raw, database)).returncode == 0
        assert full_build.result().returncode == 0
    assert snapshot(database) == snapshot(full)
    assert not database.with_name(database.name + ".next").exists()


def test_reads_during_a_build_see_the_previous_build_and_a_second_build_is_refused(project, tmp_path):
    project, raw, database = project
    before = snapshot(database)
    render_reports(database, tmp_path / "before")
    (raw / "alpha" / "late.jsonl").write_text(NEW_RUNS)
    first = start_build(project, raw, database, by_dbt=True)
    building = database.with_name(database.name + ".next")
    deadline = time.monotonic() + 120
    while not building.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert building.exists(), "the build never started"
    second = finish(start_build(project, raw, database))
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"runlens: another build holds {database}.lock: wait for it to finish, then build again"
    ]
    assert snapshot(database) == before  # an ad-hoc query during the build
    render_reports(database, tmp_path / "during")  # a report during the build
    assert (tmp_path / "during" / "index.md").read_bytes() == (tmp_path / "before" / "index.md").read_bytes()
    assert finish(first).returncode == 0
    with duckdb.connect(str(database), read_only=True) as connection:
        assert connection.execute("select count(*) from fct_runs where run_id like 'late-%'").fetchone()[0] == 40


# A stop whose signal comes while the build's lock is taken or let go: the signal is sent from
# inside the step (flock, or the file's removal), where an interrupt left the lock file behind.
LOCK_STEP_INTERRUPTED = """
import os, signal, sys
from pathlib import Path
from runlens.refresh import build, file_lock
from runlens.refresh.stopping import Stopping

step, path = sys.argv[1], Path(sys.argv[2])
def stop_now():
    os.kill(os.getpid(), signal.SIGTERM)
    print("signalled", flush=True)  # the handler has run by now: the interrupt would come here
if step == "taken":
    flock = file_lock.fcntl.flock
    def flock_after_signal(*args):
        stop_now()
        return flock(*args)
    file_lock.fcntl.flock = flock_after_signal
else:
    remove = file_lock.HeldLock.remove
    def remove_after_signal(lock):
        stop_now()
        remove(lock)
    file_lock.HeldLock.remove = remove_after_signal
with Stopping(lambda: "stopped").installed() as stopping:
    try:
        with build.build_lock(path):
            print("held", flush=True)
        print("let go", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    sys.exit(stopping.end())
"""


@pytest.mark.parametrize(
    ("step", "printed"), [("taken", "signalled\ninterrupted\n"), ("let go", "held\nsignalled\ninterrupted\n")]
)
def test_a_signal_while_the_lock_is_taken_or_let_go_leaves_no_lock_file(tmp_path, step, printed):
    lock = tmp_path / f"{DATABASE}.lock"
    done = subprocess.run(
        [sys.executable, "-c", LOCK_STEP_INTERRUPTED, step, str(lock)], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (128 + signal.SIGTERM, printed, "stopped\n")
    assert not lock.exists()
