"""What a new user meets first (issue 17): each first mistake is one line, prefixed `runlens: `,
that says what to do, with a non-zero exit where nothing can be built and no traceback. A raw
folder with no logs stops `runlens build` before dbt too (exit 1; tests/command/test_messages.py); a plain
`dbt build` of one makes empty marts, and the report's index says so.

The `runlens` command runs as the user runs it, in subprocesses, here in the checkout (the
messages of an installed runlens: tests/command/test_messages.py). The raw folder's mistakes stop
`runlens build` before dbt starts, so they cost no build; one plain `dbt build --select
stg_log_lines` shows the same line inside dbt's error, and one plain build of an empty folder runs
in the background (@prebuilt). As root, a folder's permissions bind only a process without root's
two file-access capabilities: the unreadable cases run their command without them.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shlex
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from runlens.plural import plural
from runlens.raw_logs import duckdb_plugin
from runlens.raw_logs.as_of import AsOfError, parse_as_of
from runlens.report import rules
from runlens.report.rows import mart_row
from tests.support.pipeline import DATABASE, PROJECT, REPO, run_dbt, runlens_command
from tests.support.prebuilt import Prebuilds, prebuilt

SCRIPTS = REPO / "scripts"
WHAT_TO_DO = "set RUNLENS_RAW_DIR to a folder of *.jsonl logs"  # the folder came from RUNLENS_RAW_DIR
GIVE_LOGS = "give --logs a folder of *.jsonl logs"  # ... from --logs
PR_CAPBSET_DROP = 24  # prctl: drop a capability from the bounding set, which the next exec applies
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def without_root_file_access() -> None:
    """preexec_fn: the script runs bound by file permissions, even as root."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)


def run_script(script: str, *args, env: dict | None = None, cwd: Path | None = None, unprivileged: bool = False):
    """A script of scripts/ (engine_build.py), run as the user runs it."""
    return subprocess.run(
        [sys.executable, str(SCRIPTS / script), *map(str, args)],
        env={**os.environ, **(env or {})},
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=without_root_file_access if unprivileged and os.geteuid() == 0 else None,
    )


def runlens(*args, env: dict | None = None, cwd: Path | None = None, unprivileged: bool = False):
    """The `runlens` command, run as the user runs it."""
    return runlens_command(
        *args,
        env=env,
        cwd=cwd or REPO,
        preexec_fn=without_root_file_access if unprivileged and os.geteuid() == 0 else None,
    )


def one_line(result: subprocess.CompletedProcess) -> str:
    """The single line the script wrote on stderr (so no traceback), prefixed `runlens: `."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("runlens: "), lines[0]
    return lines[0]


@pytest.fixture
def unreadable_folder(tmp_path):
    """A folder (holding a log) that the scripts' processes cannot list."""
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "run.jsonl").write_text('{"run_id": "r", "event": "run_start", "ts": "2025-01-01T00:00:00Z"}\n')
    folder.chmod(0)
    listing = subprocess.run(
        [sys.executable, "-c", f"import os; os.listdir({str(folder)!r})"],
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=without_root_file_access if os.geteuid() == 0 else None,
    )
    if listing.returncode == 0:
        folder.chmod(0o700)
        pytest.skip("this machine lets the tests' processes read a folder whatever its permissions")
    assert "PermissionError" in listing.stderr, listing.stderr
    yield folder
    folder.chmod(0o700)


def build_env(raw, tmp_path: Path) -> dict:
    return {"RUNLENS_RAW_DIR": str(raw), "RUNLENS_DB": str(tmp_path / "db" / DATABASE)}


def assert_dbt_never_started(result: subprocess.CompletedProcess, tmp_path: Path) -> None:
    assert result.returncode == 2 and result.stdout == ""  # no summary: nothing was built
    assert not (tmp_path / "db").exists()  # not even the build's lock file


# --------------------------------------------------------------------------------------------
# runlens build: the raw folder is checked before dbt starts


def test_build_of_a_missing_folder_is_one_line(tmp_path):
    """A relative RUNLENS_RAW_DIR (or --logs) is taken from the folder the build starts in."""
    result = runlens("build", env=build_env("no-such-logs", tmp_path), cwd=tmp_path)
    assert one_line(result) == f"runlens: raw log folder {tmp_path / 'no-such-logs'} does not exist: {WHAT_TO_DO}"
    assert_dbt_never_started(result, tmp_path)
    result = runlens("build", "--logs", "other-logs", "--db", tmp_path / "db" / DATABASE, cwd=tmp_path)
    assert one_line(result) == f"runlens: raw log folder {tmp_path / 'other-logs'} does not exist: {GIVE_LOGS}"
    assert_dbt_never_started(result, tmp_path)


def json_event(run_id: str, event: str, minute: int, **fields) -> str:
    return json.dumps({"run_id": run_id, "event": event, "ts": f"2025-01-01T00:{minute:02d}:00Z", **fields}) + "\n"


def test_logs_saved_as_json_are_named_with_a_command_that_reads_them(tmp_path):
    """A folder of JSON Lines saved as `*.json`: the line counts them (not a pretty-printed
    config.json), says runlens reads *.jsonl and gives a command that reads them as they are,
    which builds them."""
    raw = tmp_path / "logs"
    (raw / "sub").mkdir(parents=True)
    start = {"collection": "saved/json", "task": "t"}
    (raw / "a.json").write_text(
        json_event("j-1", "run_start", 0, **start)
        + json_event("j-1", "checkpoint", 10, step=10)
        + json_event("j-1", "run_end", 20)
    )
    (raw / "sub" / "b.json").write_text(json_event("j-2", "run_start", 0, **start) + json_event("j-2", "run_end", 5))
    (raw / "config.json").write_text('{\n  "lr": 0.1\n}\n')  # 3 lines, none a JSON object
    (raw / "notes.txt").write_text("not a log\n")
    database = tmp_path / DATABASE  # the default one here: the command needs no --db
    result = runlens("build", "--logs", raw, "--db", database, cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    line = one_line(result)
    assert line == (
        f"runlens: found 2 *.json files of JSON lines below {raw}, no runlens logs: runlens reads *.jsonl, "
        f"*.jsonl.gz; `RUNLENS_LOG_SUFFIXES=.json runlens build --logs {raw}` reads them "
        "as they are (or name them *.jsonl)"
    )
    assert not database.exists()
    variable, *command = shlex.split(line.split("`")[1])
    name, value = variable.split("=")
    built = runlens(*command[1:], env={name: value}, cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    with duckdb.connect(str(database), read_only=True) as connection:
        totals = connection.execute("select files, accepted, rejected from agg_build_data_quality").fetchone()
        runs = connection.execute("select run_id from fct_runs order by run_id").fetchall()
    assert totals == (3, 5, 3)  # a.json 3 lines, sub/b.json 2, config.json's 3 lines rejected
    assert runs == [("j-1",), ("j-2",)]


def test_build_of_a_file_is_one_line(tmp_path):
    log = tmp_path / "run.jsonl"
    log.write_text("{}\n")
    result = runlens("build", env=build_env(log, tmp_path))
    assert one_line(result) == f"runlens: raw log folder {log} is a file, not a folder: {WHAT_TO_DO}, not to one file"
    assert_dbt_never_started(result, tmp_path)


def test_build_of_an_unreadable_folder_is_one_line(unreadable_folder, tmp_path):
    result = runlens("build", env=build_env(unreadable_folder, tmp_path), unprivileged=True)
    assert one_line(result) == (
        f"runlens: raw log folder {unreadable_folder} cannot be read (permission denied): "
        f"let this user read it, or {WHAT_TO_DO}"
    )
    assert_dbt_never_started(result, tmp_path)


def test_build_into_a_missing_folder_is_one_line(tmp_path):
    result = runlens("build", env=build_env(REPO / "data" / "sample", tmp_path))
    assert one_line(result) == (
        f"runlens: the folder of the database {tmp_path / 'db' / DATABASE} (RUNLENS_DB) does not exist: create it, "
        "or set RUNLENS_DB to a path in a folder that exists"
    )
    assert_dbt_never_started(result, tmp_path)
    result = runlens("build", "--logs", REPO / "data" / "sample", "--db", tmp_path / "db" / DATABASE)
    assert one_line(result) == (
        f"runlens: the folder of the database {tmp_path / 'db' / DATABASE} does not exist: create it, "
        "or give --db a path in a folder that exists"
    )
    assert_dbt_never_started(result, tmp_path)


def test_a_dbt_selection_that_matches_nothing_is_one_line(tmp_path):
    """`runlens build -- --select nonexistent` passes dbt's complaint on in one line (exit 2) and
    writes no database; dbt's recorded plans keep no plan of it, so the second time is the same."""
    work = tmp_path / "work"
    work.mkdir()
    env = {"RUNLENS_CACHE_DIR": str(tmp_path / "cache")}  # a cache of its own: dbt parses, records no plan
    for _ in range(2):
        result = runlens(
            "build", "--logs", REPO / "data" / "sample", "--", "--select", "nonexistent", env=env, cwd=work
        )
        assert result.returncode == 2, result.stderr[-2000:]
        assert one_line(result) == (
            "runlens: dbt's selection `--select nonexistent` matched no node of the project (dbt: The selection "
            "criterion 'nonexistent' does not match any enabled nodes), so nothing was built and "
            f"{work / DATABASE} was not written: select models by their names (`runlens marts` lists the marts), "
            "or build without the dbt options"
        )
        assert list(work.iterdir()) == []  # no database, no copy, no lock


def test_build_with_an_as_of_that_is_no_time_is_one_line(tmp_path):
    env = {**build_env(REPO / "data" / "sample", tmp_path), "RUNLENS_AS_OF": "yesterday"}
    result = runlens("build", env=env)
    assert one_line(result) == (
        "runlens: RUNLENS_AS_OF='yesterday' is not a time: give an ISO 8601 time such as 2026-12-01T12:00:00Z, "
        "or unset it"
    )
    assert_dbt_never_started(result, tmp_path)


def test_as_of_is_read_as_utc():
    """An offset is converted to UTC; a time without one is UTC already."""
    assert parse_as_of("2025-03-01T10:00:00+02:00") == datetime(2025, 3, 1, 8, 0)
    assert parse_as_of("2025-03-01T10:00:00Z") == datetime(2025, 3, 1, 10, 0)
    assert parse_as_of(" 2025-03-01 10:00 ") == datetime(2025, 3, 1, 10, 0)
    with pytest.raises(AsOfError):
        parse_as_of("03/01/2025")


def test_postgres_build_checks_the_folder_the_same_way(tmp_path):
    """scripts/engine_build.py postgres loads the folder from this machine: the same check, before
    any connection to a server."""
    log = tmp_path / "run.jsonl"
    log.write_text("{}\n")
    result = run_script("engine_build.py", "postgres", env={"RUNLENS_RAW_DIR": str(log)})
    assert one_line(result) == f"runlens: raw log folder {log} is a file, not a folder: {WHAT_TO_DO}, not to one file"
    assert result.returncode == 2


# --------------------------------------------------------------------------------------------
# a plain `dbt build`: the plugin's listing raises, and dbt's error carries the same line


def test_plugin_reading_writes_the_runlens_line_on_a_line_of_its_own(tmp_path, monkeypatch):
    """A folder that cannot be read: the plugin's reading (while dbt connects) raises nothing and
    leaves its line in the build context, for stg_build_context to stop the build with."""
    monkeypatch.setenv("RUNLENS_RAW_DIR", str(tmp_path / "nope"))
    with duckdb.connect() as connection:
        duckdb_plugin.read_raw_folder(connection, "main", full=False)
        (error,) = connection.execute("select reading_error from main_raw.build_context").fetchone()
    assert error == f"\nrunlens: raw log folder {tmp_path / 'nope'} does not exist: {WHAT_TO_DO}"


@prebuilt()
def plain_dbt_build_of_a_file(builds: Prebuilds):
    """`dbt build --select +stg_log_lines` (no runlens command; its unit tests left out) over a file."""
    root = builds.mktemp("plain_dbt")
    log = root / "run.jsonl"
    log.write_text("{}\n")
    return log, run_dbt(
        PROJECT,
        log,
        root / "db" / DATABASE,
        "build",
        "--select",
        "+stg_log_lines",
        "--exclude-resource-type",
        "unit_test",
    )


def test_plain_dbt_build_of_a_file_shows_the_runlens_line(plain_dbt_build_of_a_file):
    log, result = plain_dbt_build_of_a_file
    assert result.returncode != 0
    line = f"runlens: raw log folder {log} is a file, not a folder: {WHAT_TO_DO}, not to one file"
    assert line in [text.strip() for text in result.stdout.splitlines()], result.stdout[-3000:]
    assert "Traceback" not in result.stdout + result.stderr


# --------------------------------------------------------------------------------------------
# a folder with no logs: `runlens build` stops before dbt (tests/command/test_messages.py); a plain dbt
# build makes empty marts, and their index says no runs were found


@prebuilt()
def empty_folder_build(builds: Prebuilds):
    """A plain `dbt build` over a folder with no logs in it (only a file that is not one)."""
    root = builds.mktemp("empty_folder")
    raw = root / "raw"
    raw.mkdir()
    (raw / "notes.txt").write_text("not a log\n")
    database = root / "db" / DATABASE
    database.parent.mkdir()
    return raw, database, run_dbt(PROJECT, raw, database, "build", "--exclude-resource-type", "unit_test")


def test_a_plain_build_of_an_empty_folder_makes_empty_marts(empty_folder_build):
    raw, database, result = empty_folder_build
    assert result.returncode == 0, result.stdout[-4000:]
    with duckdb.connect(str(database), read_only=True) as connection:
        counts = [
            connection.execute(f"select count(*) from {mart}").fetchone()[0] for mart in ("fct_runs", "fct_events")
        ]
    assert counts == [0, 0]


def test_empty_marts_get_an_index_that_says_no_runs_were_found(empty_folder_build, tmp_path):
    """In the checkout the index gives the Makefile's command; installed, runlens commands."""
    raw, database, _result = empty_folder_build
    result = runlens("report", "--db", database, "--out", tmp_path / "reports")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == f"runlens: wrote 1 page under {tmp_path / 'reports'}\n"
    index = (tmp_path / "reports" / "index.md").read_text(encoding="utf-8")
    assert "**No runs were found.**" in index and f"`{database}`" in index
    assert "found no logs (`*.jsonl`, `*.jsonl.gz`)" in index
    assert f"RUNLENS_RAW_DIR=<folder> RUNLENS_DB={database} make sample" in index
    assert f"The build looked in `{raw}`." in index
    assert "`runlens profile <folder>`" in index
    assert "| collection |" not in index
    installed = tmp_path / "elsewhere"
    installed.mkdir()
    result = runlens("report", "--db", database, "--out", "pages", cwd=installed)
    assert result.returncode == 0 and result.stderr == ""
    index = (installed / "pages" / "index.md").read_text(encoding="utf-8")
    commands = index.split("```\n")[1].splitlines()
    assert commands == [f"runlens build --logs <folder> --db {database}", f"runlens report --db {database} --out pages"]
    assert re.search(r"\bmake\b", index) is None and "RUNLENS_" not in index


def test_the_index_says_why_it_lists_no_run():
    """No log file read, or log files read that gave no run (figures quoted from the marts)."""
    nothing = {"unreadable_files": 0, "physical_lines": 0, "blank_lines": 0, "lines_read": 0, "duplicates": 0}
    quality = mart_row("agg_collection_data_quality", files=0, accepted=0, other_events=0, rejected=0, **nothing)
    assert rules.no_runs(quality) == rules.Finding("no_log_files")
    quality = mart_row(
        "agg_collection_data_quality", files=2, accepted=1, other_events=3, rejected=4, **{**nothing, "lines_read": 8}
    )
    assert rules.no_runs(quality) == rules.Finding(
        "no_runs_in_log_files", {"files": 2, "accepted": 1, "other_events": 3, "rejected": 4}
    )


def test_counts_in_messages_agree_with_their_nouns():
    assert [plural(count, "page") for count in (0, 1, 3)] == ["0 pages", "1 page", "3 pages"]
    assert plural(1, "match", "matches") == "1 match" and plural(2, "match", "matches") == "2 matches"


# --------------------------------------------------------------------------------------------
# runlens import


def test_import_of_a_missing_path_is_one_line(tmp_path):
    result = runlens("import", tmp_path / "nope", "--into", tmp_path / "out")
    assert one_line(result) == (
        f"runlens: {tmp_path / 'nope'} does not exist: give a folder or file of training logs to import"
    )
    assert result.returncode == 2 and not (tmp_path / "out").exists()


def test_import_into_a_file_is_one_line(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "out").write_text("")
    result = runlens("import", tmp_path / "logs", "--into", tmp_path / "out")
    assert one_line(result) == (
        f"runlens: --into {tmp_path / 'out'} is a file, not a folder: give a folder for the imported logs"
    )
    assert result.returncode == 2


def test_import_of_an_unreadable_path_is_one_line(unreadable_folder, tmp_path):
    result = runlens("import", unreadable_folder, "--into", tmp_path / "out", unprivileged=True)
    assert one_line(result) == (
        f"runlens: cannot read {unreadable_folder} (permission denied): let this user read it, or import another path"
    )
    assert result.returncode == 2 and not (tmp_path / "out").exists()


def test_import_of_nothing_importable_says_what_it_looks_for(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "notes.txt").write_text("no timestamps, no checkpoints\n")
    result = runlens("import", tmp_path / "logs", "--into", tmp_path / "out")
    line = one_line(result)
    assert line.startswith(f"runlens: nothing to import found in {tmp_path / 'logs'}: it looks for ")
    assert "TensorBoard event files" in line and "MLflow" in line and "text training logs" in line
    assert result.returncode == 1 and not (tmp_path / "out").exists()


# --------------------------------------------------------------------------------------------
# a database an earlier runlens built, with other columns: built again whole, with one line


def test_a_database_from_an_earlier_runlens_is_built_again_whole(tmp_path):
    """stg_log_lines without a column this version's model makes (as a database built before the
    column came): `runlens build` says so in one line, rebuilds it whole and the column is back."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "run.jsonl").write_text(
        '{"run_id": "r", "event": "run_start", "ts": "2025-01-01T00:00:00Z", "collection": "c", "task": "t"}\n'
        '{"run_id": "r", "event": "epoch_end", "ts": "2025-01-01T00:10:00Z", "epoch": 1}\n'
        '{"run_id": "r", "event": "run_end", "ts": "2025-01-01T00:12:00Z"}\n'
    )
    database = tmp_path / "db" / DATABASE
    database.parent.mkdir()
    assert runlens("build", "--logs", raw, "--db", database).returncode == 0
    with duckdb.connect(str(database)) as connection:
        connection.execute("alter table stg_log_lines drop column resources")
    result = runlens("build", "--logs", raw, "--db", database)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert one_line(result) == (
        f"runlens: {database} was built by an earlier runlens whose tables differ from this one's: "
        "building it again whole from the raw logs (--full-refresh)"
    )
    with duckdb.connect(str(database), read_only=True) as connection:
        columns = {row[0] for row in connection.execute("describe stg_log_lines").fetchall()}
        walls = connection.execute("select wall_seconds from fct_runs").fetchall()
    assert "resources" in columns and walls == [(720.0,)]
