"""Messages for how the user runs runlens (runlens/usage.py): installed, a user has the `runlens`
command and nothing else, so no message of theirs names `make` or an environment variable they did
not set; `runlens build` over a folder without runlens logs stops before dbt, naming the other
trackers' logs it found and the `runlens profile` command that reads them.

Every command runs as the user runs it, in a subprocess, from a folder that is not the checkout
(which is what an installed runlens always sees), with no RUNLENS_ variable but the cache folder.
None of them builds: each stops before dbt starts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from runlens import usage
from runlens.importers.found import tensorboard_readable
from tests.support.pipeline import DATABASE, REPO, RUNLENS

IMPORTERS = REPO / "tests" / "fixtures" / "importers"
TENSORBOARD = IMPORTERS / "lightning" / "lightning_logs"
FAIRSEQ = "".join(  # a fairseq training log, as its train.py writes it
    line + "\n"
    for line in (
        "2021-05-10 14:08:40 | INFO | fairseq_cli.train | {'task': {'_name': 'translation', 'data': 'x'}}",
        "2021-05-10 14:08:41 | INFO | fairseq.trainer | begin training epoch 1",
        "2021-05-10 14:10:07 | INFO | fairseq.checkpoint_utils | Saved checkpoint run/checkpoint1.pt "
        "(epoch 1 @ 379 updates, score 0.01) (writing took 0.2)",
        "2021-05-10 14:10:07 | INFO | fairseq_cli.train | end of epoch 1 (average epoch stats below)",
        "2021-05-10 14:11:40 | INFO | fairseq_cli.train | done training in 179.5 seconds",
    )
)
MAKE = re.compile(r"\bmake\b")


def installed_env(tmp_path: Path, **variables: str) -> dict[str, str]:
    """The environment of a user who set none of runlens' variables (but the given ones); the
    cache folder is the test's, to see that dbt never started."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("RUNLENS_")}
    return {**env, "RUNLENS_CACHE_DIR": str(tmp_path / "cache"), **variables}


def runlens(tmp_path: Path, *args, **variables: str) -> subprocess.CompletedProcess:
    """`runlens ARGS` from an empty folder of the user's (tmp_path/work)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    command = [str(RUNLENS), *map(str, args)]
    return subprocess.run(
        command, cwd=work, env=installed_env(tmp_path, **variables), capture_output=True, text=True, check=False
    )


def one_line(result: subprocess.CompletedProcess, *set_variables: str) -> str:
    """The single `runlens: ` line on stderr, which names no `make` and only the variables set."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("runlens: "), line
    assert not MAKE.search(line), line
    assert set(re.findall(r"RUNLENS_[A-Z_]+", line)) <= set(set_variables), line
    return line


def nothing_started(tmp_path: Path) -> None:
    """No database, no lock, no dbt: the cache folder dbt writes its log to was never made."""
    assert {path.name for path in (tmp_path / "work").iterdir()} == set()
    assert not (tmp_path / "cache").exists()


# --------------------------------------------------------------------------------------------
# how runlens runs


def test_a_checkout_is_the_repository_the_package_came_from_as_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    assert usage.in_checkout()
    monkeypatch.chdir(REPO / "runlens")  # make would find no Makefile here
    assert not usage.in_checkout()
    monkeypatch.chdir(tmp_path)
    assert not usage.in_checkout()


WITHOUT_THE_EXTRA = (  # runlens' own command, in a Python that finds neither TensorBoard nor W&B
    "import sys; sys.modules['tensorboard'] = sys.modules['wandb'] = None; "
    "from runlens.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_the_missing_extra_is_installed_into_the_checkout_runlens_runs_from(tmp_path, where):
    """From a source checkout, `pip install 'runlens[importers]'` would ask the package index for
    runlens: the line gives the checkout's own editable install, with the venv's interpreter, run in
    the checkout (the wheel's line: tests/command/test_command.py)."""
    python = RUNLENS.with_name("python")
    assert python.parent == REPO / ".venv" / "bin"  # the tests run in the checkout's venv
    cwd = REPO if where == "checkout" else tmp_path
    result = subprocess.run(
        [str(python), "-c", WITHOUT_THE_EXTRA, "import", "--format", "tensorboard", str(TENSORBOARD)]
        + ["--into", str(tmp_path / "imported")],
        cwd=cwd,
        env=installed_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    install = "`.venv/bin/python -m pip install -e '.[importers]'` (or `make .venv/.installed-importers`)"
    if where == "elsewhere":
        install = f"`cd {REPO} && .venv/bin/python -m pip install -e '.[importers]'`"
    assert result.stderr == f"runlens: reading TensorBoard logs needs the importer extra: {install}\n"
    assert not (tmp_path / "imported").exists()


def test_a_checkout_gives_make_where_it_works(monkeypatch, tmp_path):
    monkeypatch.delenv("RUNLENS_DB", raising=False)
    monkeypatch.chdir(REPO)
    assert "`make sample`" in usage.no_database(REPO / DATABASE)
    assert usage.index_commands(REPO / DATABASE, REPO / "reports") == ["RUNLENS_RAW_DIR=<folder> make sample"]
    # a database elsewhere: make reaches it through RUNLENS_DB, runlens through --db
    assert not MAKE.search(usage.no_database(tmp_path / DATABASE))
    assert usage.index_commands(tmp_path / DATABASE, REPO / "reports") == [
        f"RUNLENS_RAW_DIR=<folder> RUNLENS_DB={tmp_path / DATABASE} make sample"
    ]


# --------------------------------------------------------------------------------------------
# an installed user's first mistakes


def test_report_in_an_empty_folder_says_to_run_runlens_build(tmp_path):
    result = runlens(tmp_path, "report")
    assert result.returncode == 2
    assert one_line(result) == (
        f"runlens: no database at {tmp_path / 'work' / DATABASE}: build it first: `runlens build --logs <folder>` "
        "(`runlens build` alone: the bundled sample), or pass --db"
    )
    nothing_started(tmp_path)


def test_report_and_marts_of_a_database_elsewhere_carry_its_db(tmp_path):
    database = tmp_path / "other.duckdb"
    for command in ("report", "marts"):
        result = runlens(tmp_path, command, "--db", database)
        assert result.returncode == 2
        assert one_line(result) == (
            f"runlens: no database at {database}: build it first: `runlens build --logs <folder> --db {database}`, "
            "or pass another --db"
        )
    duckdb.connect(str(database)).close()
    result = runlens(tmp_path, "report", "--db", database)
    assert result.returncode == 2
    assert "build them first: `runlens build --logs <folder> --db " in one_line(result)


def test_a_variable_the_user_set_is_named(tmp_path):
    database = tmp_path / "mine.duckdb"
    result = runlens(tmp_path, "report", RUNLENS_DB=str(database))
    assert result.returncode == 2
    assert one_line(result, "RUNLENS_DB") == (
        f"runlens: no database at {database} (RUNLENS_DB): build it first: `runlens build --logs <folder>` "
        "(`runlens build` alone: the bundled sample), or set RUNLENS_DB to another"
    )
    result = runlens(tmp_path, "build", RUNLENS_RAW_DIR=str(tmp_path / "nope"))
    assert result.returncode == 2
    assert one_line(result, "RUNLENS_RAW_DIR") == (
        f"runlens: raw log folder {tmp_path / 'nope'} does not exist: set RUNLENS_RAW_DIR to a folder of *.jsonl logs"
    )
    nothing_started(tmp_path)


def test_build_of_a_missing_folder_or_a_file_names_logs(tmp_path):
    result = runlens(tmp_path, "build", "--logs", "/nope")
    assert result.returncode == 2
    assert one_line(result) == "runlens: raw log folder /nope does not exist: give --logs a folder of *.jsonl logs"
    log = tmp_path / "train.log"
    log.write_text(FAIRSEQ)
    result = runlens(tmp_path, "build", "--logs", log)
    assert result.returncode == 2
    assert one_line(result).endswith(": give --logs a folder of *.jsonl logs, not one file")
    result = runlens(tmp_path, "build", "--db", tmp_path / "no" / DATABASE)
    assert result.returncode == 2
    assert one_line(result).endswith("does not exist: create it, or give --db a path in a folder that exists")
    nothing_started(tmp_path)


# --------------------------------------------------------------------------------------------
# runlens build over a folder without runlens logs: nothing built, dbt never started


def other_trackers_logs(folder: Path) -> Path:
    """Two fairseq text logs, a Lightning TensorBoard run and an offline W&B run (whose own
    debug logs are the run's, not text training logs)."""
    folder.mkdir()
    (folder / "baseline_train.log").write_text(FAIRSEQ)
    (folder / "tuned_train.log").write_text(FAIRSEQ)
    (folder / "notes.txt").write_text("not a log\n")
    shutil.copytree(IMPORTERS / "lightning" / "lightning_logs", folder / "lightning_logs")
    run = "offline-run-20261203_101224-rlplain1"
    shutil.copytree(IMPORTERS / "wandb" / "wandb" / run, folder / "wandb" / run)
    return folder


def test_build_over_other_trackers_logs_names_them_and_runlens_profile(tmp_path):
    folder = other_trackers_logs(tmp_path / "logs")
    result = runlens(tmp_path, "build", "--logs", folder)
    assert result.returncode == 1 and result.stdout == ""
    tensorboard = ", 1 TensorBoard run" if tensorboard_readable() else ""
    assert one_line(result) == (
        f"runlens: found 2 text training logs (fairseq style){tensorboard} and 1 W&B run below {folder}, "
        f"no runlens logs (*.jsonl, *.jsonl.gz): `runlens profile {folder}` imports, builds and reports them"
    )
    nothing_started(tmp_path)


def test_build_over_text_logs_alone(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "train.log").write_text(FAIRSEQ)
    result = runlens(tmp_path, "build", "--logs", folder)
    assert result.returncode == 1
    assert one_line(result).startswith(f"runlens: found 1 text training log (fairseq style) below {folder}, ")
    nothing_started(tmp_path)


@pytest.mark.parametrize("contents", [{}, {"notes.txt": "not a log\n", "_import_rejects.jsonl": "{}\n"}])
def test_build_over_a_folder_with_no_logs_builds_nothing_and_says_so(tmp_path, contents):
    folder = tmp_path / "logs"
    folder.mkdir()
    for name, text in contents.items():
        (folder / name).write_text(text)
    result = runlens(tmp_path, "build", "--logs", folder)
    assert result.returncode == 1 and result.stdout == ""
    line = one_line(result)
    assert line.startswith(f"runlens: no logs found below {folder}: no runlens logs (*.jsonl, *.jsonl.gz), nor ")
    assert line.endswith("for `runlens profile`: give --logs the folder your training writes its logs to")
    nothing_started(tmp_path)
