"""The installed `runlens` command (issue 24): the wheel works from any folder, dbt runs in-process
and parses once (also across databases, in a fresh process), the build ends with a summary read
from the marts (issue 21), `profile` imports, builds and reports in one go, and `watch` refreshes
as the logs change.

Every command runs as a user runs it, in a process of its own. The figures of the summary over the
faulty fixture are worked out from tests/fixtures/faulty/EXPECTED.md, with one more file whose
run_start is misspelt (worked out below).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from runlens import cli
from tests.support.pipeline import DATABASE, REPO, RUNLENS, runlens_command
from tests.support.prebuilt import Prebuilds, prebuilt

FAULTY = REPO / "tests" / "fixtures" / "faulty"
SAMPLE = REPO / "data" / "sample"
MLFLOW = REPO / "tests" / "fixtures" / "importers" / "lightning" / "mlruns"
ANSI = re.compile("\x1b\\[")
# a run whose run_start is misspelt: its first line is rejected (unknown_event, like `Run_Start` in
# the input contract), its checkpoint and run_end are accepted, and the run has no run_start
MISSPELT = (
    '{"run_id": "typo-run", "event": "Run_Start", "ts": "2025-01-03T00:00:00Z", "collection": "fixture/alpha",'
    ' "task": "classify"}\n'
    '{"run_id": "typo-run", "event": "checkpoint", "step": 100, "ts": "2025-01-03T00:10:00Z"}\n'
    '{"run_id": "typo-run", "event": "run_end", "ts": "2025-01-03T00:20:00Z"}\n'
)
GAMMA = (
    '{"run_id": "gamma-1", "event": "run_start", "ts": "2025-01-04T00:00:00Z", "collection": "fixture/gamma",'
    ' "task": "classify"}\n'
    '{"run_id": "gamma-1", "event": "epoch_end", "epoch": 1, "step": 10, "ts": "2025-01-04T00:10:00Z"}\n'
    '{"run_id": "gamma-1", "event": "run_end", "ts": "2025-01-04T00:12:00Z"}\n'
)


def dbt_log(cache: Path) -> Path:
    """The dbt log file a command wrote below its cache folder (one project, one folder)."""
    (log,) = cache.glob("*/logs/dbt.log")
    return log


# --------------------------------------------------------------------------------------------
# the build's summary


@prebuilt()
def faulty_command_build(builds: Prebuilds):
    """`runlens build` over the faulty fixture plus the misspelt run, from an empty folder."""
    root = builds.mktemp("command_faulty")
    raw = root / "raw"
    shutil.copytree(FAULTY, raw)
    (raw / "zz-misspelt.jsonl").write_text(MISSPELT)
    work = root / "work"
    work.mkdir()
    env = {"RUNLENS_CACHE_DIR": str(root / "cache")}
    first = runlens_command("build", "--logs", raw, env=env, cwd=work)
    again = runlens_command("build", "--logs", raw, "-v", env=env, cwd=work)
    return raw, work, first, again


def test_the_build_ends_with_what_a_person_can_use(faulty_command_build):
    """EXPECTED.md: 8 files, 34 accepted, 1 duplicate, 2 other events, 19 rejected; the reasons
    bad_ts 3, missing_run_id 3, then eight reasons of 2 or 1 lines (bad_profile, invalid_json,
    missing_event, missing_run_fields, missing_step 2 each; unknown_event, invalid_utf8,
    not_object 1 each); the first reject is alpha/plain.jsonl:8; runs: 6 analyzed, alpha-failed
    failed, alpha-incomplete incomplete. The misspelt file adds 1 file, 2 accepted lines, 1
    rejected (unknown_event, now 2 lines) and 1 run excluded for no_run_start (typo-run). Ties
    are listed by name."""
    raw, work, result, _again = faulty_command_build
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stderr == ""
    database = work / DATABASE
    assert result.stdout.splitlines() == [
        f"runlens: built {database} from 9 log files below {raw}",
        "  lines: 36 accepted, 1 duplicate, 2 other events, 20 rejected "
        "(bad_ts 3, missing_run_id 3, bad_profile 2, and 7 more reasons)",
        "    rejects are in fct_rejected_lines, the first at alpha/plain.jsonl:8",
        "  runs: 6 analyzed, 3 excluded "
        "(failed 1: alpha-failed, incomplete 1: alpha-incomplete, no_run_start 1: typo-run)",
        "    the reason of each is fct_runs.exclusion_reason",
        "    no_run_start: no run_start line names the run: a misspelt event type or a lost first line "
        "(RUNLENS_EVENT_ALIASES maps another name to run_start)",
        "  collections: 2 built (fixture/alpha, fixture/base)",
        "  reports: not written yet: runlens report",
    ]


def test_dbts_log_goes_to_a_file_unless_asked_and_never_in_colour(faulty_command_build, tmp_path):
    raw, work, quiet, verbose = faulty_command_build
    assert "Running with dbt" not in quiet.stdout + quiet.stderr
    assert verbose.returncode == 0, verbose.stdout[-3000:]
    assert "Running with dbt" in verbose.stdout and "Done. PASS=" in verbose.stdout
    assert verbose.stdout.rstrip().endswith("  reports: not written yet: runlens report")
    log = dbt_log(raw.parent / "cache").read_text(encoding="utf-8")
    assert "Running with dbt" in log and "Done. PASS=" in log
    for text in (quiet.stdout, quiet.stderr, verbose.stdout, verbose.stderr, log):
        assert not ANSI.search(text)


def test_a_failed_build_shows_dbts_error_and_keeps_the_database(faulty_command_build, tmp_path):
    """A model dbt cannot build (dim_build, given the dbt var as_of that is no time) fails the
    build: dbt's error, then one line; the database is as it was."""
    raw, work, _first, _again = faulty_command_build
    database = shutil.copy2(work / DATABASE, tmp_path / DATABASE)
    before = database.read_bytes()
    dbt_args = ["--", "--select", "dim_build", "--vars", "{as_of: yesterday}"]
    result = runlens_command("build", "--logs", raw, "--db", database, *dbt_args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]  # dbt stopped (as dbt exits)
    lines = result.stderr.splitlines()
    assert lines[-1] == f"runlens: dbt build failed; {database} still holds the previous build"
    assert lines[-2].startswith("(dbt's log: ")
    assert "runlens: as_of=yesterday is not a time" in result.stderr
    assert result.stdout == "" and database.read_bytes() == before
    assert not Path(f"{database}.next").exists()


# --------------------------------------------------------------------------------------------
# parsed once


def test_another_database_and_folder_keep_dbts_partial_parse(tmp_path):
    """dbt's own words: a fresh process that builds another database over another folder with
    other DuckDB limits, dbt's plan left aside (RUNLENS_PLANS=off), parses partially (the first
    build found no saved parse); with the plans, such a build runs the first build's plan and dbt
    not at all."""
    cache = tmp_path / "cache"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = runlens_command(
        "build", "--logs", FAULTY, "--db", tmp_path / "a" / "one.duckdb", env={"RUNLENS_CACHE_DIR": str(cache)}
    )
    assert first.returncode == 0, first.stderr[-3000:]
    log = dbt_log(cache)
    assert "Unable to do partial parsing because saved manifest not found" in log.read_text(encoding="utf-8")
    log.unlink()
    env = {"RUNLENS_CACHE_DIR": str(cache), "RUNLENS_MEMORY_LIMIT": "2GB", "RUNLENS_DUCKDB_THREADS": "1"}
    second = runlens_command(
        "build", "-v", "--logs", SAMPLE, "--db", tmp_path / "b" / "two.duckdb", env={**env, "RUNLENS_PLANS": "off"}
    )
    assert second.returncode == 0, second.stderr[-3000:]
    text = log.read_text(encoding="utf-8")
    assert "Unable to do partial parsing" not in text
    assert "Nothing changed, skipping partial parsing." in text  # dbt's debug line (-v)
    with duckdb.connect(str(tmp_path / "b" / "two.duckdb"), read_only=True) as connection:
        assert connection.execute("select count(*) from fct_runs").fetchone()[0] > 0
    log.unlink()
    third = runlens_command("build", "--logs", SAMPLE, "--db", tmp_path / "b" / "three.duckdb", env=env)
    assert third.returncode == 0, third.stderr[-3000:]
    assert not log.exists()  # dbt never ran
    with duckdb.connect(str(tmp_path / "b" / "three.duckdb"), read_only=True) as connection:
        assert connection.execute("select count(*) from fct_runs").fetchone()[0] > 0


IN_PROCESS = """
import json, sys
from pathlib import Path
from runlens.refresh.build import build
from runlens.refresh.dbt_session import DbtSession

root, sample, faulty = map(Path, sys.argv[1:])
with DbtSession(work=root / "work") as session:
    first = build(sample, root / "a.duckdb", session=session)
    second = build(faulty, root / "b.duckdb", session=session)
    third = build(faulty, root / "b.duckdb", session=session)
print(json.dumps([[i.parsed for i in o.invocations] + [o.returncode] for o in (first, second, third)]))
"""


def test_one_process_parses_once_for_every_later_build(tmp_path):
    """Three builds in one session, two databases, dbt's plans left aside (dbt runs every time):
    only the first parses."""
    result = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(tmp_path), str(SAMPLE), str(FAULTY)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "RUNLENS_AS_OF": "2025-03-10T12:00:00Z", "RUNLENS_PLANS": "off"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == [["not parsed yet", 0], [None, 0], [None, 0]]


def count_unit_tests() -> int:
    """The unit tests the project declares, counted in its YAML."""
    return sum(
        len((yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("unit_tests") or [])
        for path in (REPO / "models").rglob("*.yml")
    )


def test_a_plain_dbt_build_leaves_the_unit_tests_to_make_test(tmp_path):
    """dbt_project.yml enables the unit tests only with the var unit_tests (make test's builds
    pass it: tests/engines/test_engine_parity.py)."""
    dbt = Path(sys.executable).with_name("dbt")
    common = ["ls", "--resource-type", "unit_test", "--project-dir", str(REPO), "--profiles-dir", str(REPO), "-q"]
    common += ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]
    env = {**os.environ, "RUNLENS_DB": str(tmp_path / "ls.duckdb")}
    plain = subprocess.run([str(dbt), *common], capture_output=True, text=True, check=False, env=env)
    enabled = subprocess.run(
        [str(dbt), *common, "--vars", "{unit_tests: true}"], capture_output=True, text=True, check=False, env=env
    )
    assert plain.returncode == 0 and enabled.returncode == 0, plain.stdout + enabled.stdout
    assert plain.stdout.split() == []
    assert len(enabled.stdout.split()) == count_unit_tests() > 30


# --------------------------------------------------------------------------------------------
# profile: import, build, report


@prebuilt()
def profiled(builds: Prebuilds):
    """`runlens profile` over a copy of an MLflow file store and a folder with nothing to import."""
    root = builds.mktemp("profile")
    shutil.copytree(MLFLOW, root / "mlruns")
    (root / "empty").mkdir()
    (root / "empty" / "notes.txt").write_text("nothing to see\n")
    work = root / "work"
    work.mkdir()
    env = {}  # the session's cache: the plans other builds recorded serve this one's
    args = ["profile", root / "mlruns", root / "empty", "--format", "mlflow", "--quiet"]
    return root, work, env, runlens_command(*args, env=env, cwd=work)


def test_profile_imports_builds_and_reports_naming_what_it_skips(profiled):
    root, work, _env, result = profiled
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    skipped = [line for line in result.stderr.splitlines() if "skipping" in line]
    assert skipped == [
        f"runlens: skipping {root / 'empty'}: nothing to import found in {root / 'empty'}: it looks for "
        "MLflow tracking data (mlruns/ or mlflow.db)"
    ] or skipped[0].startswith(f"runlens: skipping {root / 'empty'}: nothing to import found in ")
    assert sorted(p.name for p in (work / "imported" / "mlflow").rglob("*.jsonl")) == ["addmod-2391d9ef.jsonl"]
    assert (work / "imported.duckdb").exists()
    assert (work / "reports" / "imported" / "index.md").exists()
    assert f"  reports: {Path('reports') / 'imported' / 'index.md'} (written next)" in result.stdout
    assert "runlens: wrote " in result.stdout


def test_importing_a_source_again_replaces_what_it_wrote_before(profiled, tmp_path):
    """The MLflow run renamed: its run id (name-uuid) changes, and the file of the old name goes."""
    root, work, env, _result = profiled
    source = tmp_path / "mlruns"
    shutil.copytree(root / "mlruns", source)
    out = tmp_path / "imported"
    assert runlens_command("import", source, "--into", out, "--format", "mlflow", "--quiet").returncode == 0
    assert sorted(p.name for p in (out / "mlflow").rglob("*.jsonl")) == ["addmod-2391d9ef.jsonl"]
    (meta,) = source.glob("*/2391d9ef*/meta.yaml")
    meta.write_text(meta.read_text().replace("run_name: addmod", "run_name: addmod-renamed"))
    assert runlens_command("import", source, "--into", out, "--format", "mlflow", "--quiet").returncode == 0
    assert sorted(p.name for p in (out / "mlflow").rglob("*.jsonl")) == ["addmod-renamed-2391d9ef.jsonl"]


def test_a_dry_run_needs_no_out(tmp_path):
    for command in ("import", "profile"):
        result = runlens_command(command, MLFLOW, "--format", "mlflow", "--dry-run", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("mlflow_file\t") and list(tmp_path.iterdir()) == []
    result = runlens_command("import", MLFLOW, cwd=tmp_path)
    assert result.returncode == 2 and "--into RAW_DIR is needed" in result.stderr


def test_out_the_old_name_of_into_still_imports_and_says_the_new_name(tmp_path):
    """`--out` was the imported logs' folder of `import` and `profile` (and is the pages' folder of
    `report` and `watch`): for one release it still works there, with one line on stderr."""
    warning = (
        "runlens: --out is deprecated here: use --into (the folder the imported logs go to; --out is the "
        "pages' folder of `runlens report` and `runlens watch`)"
    )
    old = runlens_command("import", MLFLOW, "--out", tmp_path / "old", "--format", "mlflow", "--quiet")
    new = runlens_command("import", MLFLOW, "--into", tmp_path / "new", "--format", "mlflow", "--quiet")
    assert old.returncode == new.returncode == 0, old.stderr + new.stderr
    # the same summary line, naming its own folder
    said = new.stderr.replace(str(tmp_path / "new"), str(tmp_path / "old"))
    assert old.stderr.splitlines() == [warning, *said.splitlines()]
    written = {path.relative_to(tmp_path / "new") for path in (tmp_path / "new").rglob("*")}
    assert {path.relative_to(tmp_path / "old") for path in (tmp_path / "old").rglob("*")} == written
    assert any(path.suffix == ".jsonl" for path in written)
    # profile: the same alias, its value where --into's goes (a dry run: nothing imported, nothing built)
    result = runlens_command("profile", MLFLOW, "--out", tmp_path / "elsewhere", "--format", "mlflow", "--dry-run")
    assert result.returncode == 0 and result.stderr.splitlines()[0] == warning
    assert result.stdout.startswith("mlflow_file\t") and not (tmp_path / "elsewhere").exists()
    _root, subparsers = cli.parsers()
    args = subparsers["profile"].parse_args([str(MLFLOW), "--out", "elsewhere"])
    assert args.into == Path("elsewhere")
    assert subparsers["profile"].parse_args([str(MLFLOW)]).into == Path("imported")


def test_collection_the_old_name_of_into_collection_still_imports_and_says_the_new_name(tmp_path):
    """`--collection` was the imported runs' collection in `import` and `profile` (and is the collection
    `runlens report` renders): for one release it still works there, with one line on stderr, and puts
    the runs in the collection it names, as `--into-collection` does."""
    warning = (
        "runlens: --collection is deprecated here: use --into-collection (the collection the imported runs "
        "go in; --collection is the collection `runlens report` renders)"
    )
    old = runlens_command("import", MLFLOW, "--into", tmp_path / "old", "--collection", "mine", "--quiet")
    new = runlens_command("import", MLFLOW, "--into", tmp_path / "new", "--into-collection", "mine", "--quiet")
    assert old.returncode == new.returncode == 0, old.stderr + new.stderr
    said = new.stderr.replace(str(tmp_path / "new"), str(tmp_path / "old"))
    assert old.stderr.splitlines() == [warning, *said.splitlines()]
    for folder in ("old", "new"):
        starts = [
            json.loads(line)
            for path in sorted((tmp_path / folder).rglob("*.jsonl"))
            if not path.name.startswith("_")
            for line in path.read_text().splitlines()
            if '"run_start"' in line
        ]
        assert starts and {start["collection"] for start in starts} == {"mine"}, folder
    _root, subparsers = cli.parsers()
    for command in ("import", "profile"):
        assert subparsers[command].parse_args([str(MLFLOW), "--collection", "x"]).into_collection == "x"
        assert subparsers[command].parse_args([str(MLFLOW)]).into_collection is None
    assert subparsers["report"].parse_args(["--collection", "x"]).collection == "x"  # report's own, unchanged


# --------------------------------------------------------------------------------------------
# watch


def interruptible() -> None:
    """preexec_fn: Ctrl-C (SIGINT) reaches the command even when the tests run where it is ignored
    (started in the background by a shell, which the child would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_line(process: subprocess.Popen, seconds: float) -> str:
    """The next line the process writes on stdout, waiting at most seconds."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    assert ready, f"no line from runlens watch in {seconds} s"
    return process.stdout.readline()


def test_watch_refreshes_the_pages_of_the_collections_that_changed(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FAULTY, raw)
    env = {**os.environ, "RUNLENS_AS_OF": "2025-03-10T12:00:00Z"}  # the session's cache, and its plans
    process = subprocess.Popen(
        [str(RUNLENS), "watch", "--logs", str(raw), "--out", "pages", "--interval", "0.2", "--settle", "0.5"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=interruptible,
    )
    try:
        assert read_line(process, 30).startswith(f"runlens: watching {raw} (Ctrl-C stops)")
        first = read_line(process, 300)
        assert "refreshed in" in first and "8 log files" in first and "6 runs analyzed" in first, first
        pages = {path: path.stat().st_mtime_ns for path in (tmp_path / "pages").rglob("profile.md")}
        assert {path.parent.name for path in pages} >= {"fixture-alpha", "fixture-base"}
        (raw / "gamma.jsonl").write_text(GAMMA)
        announced = read_line(process, 300)
        assert announced.rstrip().endswith("1 file changed (new gamma.jsonl): refreshing"), announced
        second = read_line(process, 300)
        assert "refreshed in" in second and "9 log files" in second and "7 runs analyzed" in second, second
        assert second.rstrip().endswith("pages: index, fixture/gamma"), second
        # the refresh's seconds, split between the build and the pages (each rounded to 0.1 s)
        total, build_part, pages_part = map(
            float, re.search(r"refreshed in ([\d.]+) s \(build ([\d.]+) s, pages ([\d.]+) s\)", second).groups()
        )
        assert build_part > 0 and pages_part > 0 and abs(build_part + pages_part - total) <= 0.11, second
        assert (tmp_path / "pages" / "fixture-gamma" / "profile.md").exists()
        assert {path: path.stat().st_mtime_ns for path in pages} == pages  # the other pages are as they were
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _, stderr = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
    assert process.returncode == 130, stderr
    assert stderr.splitlines()[-1].startswith(
        f"runlens: stopped; {tmp_path / DATABASE} holds the last finished refresh"
    )
    with duckdb.connect(str(tmp_path / DATABASE), read_only=True) as connection:
        assert connection.execute("select count(*) from fct_runs where run_id = 'gamma-1'").fetchone() == (1,)


# --------------------------------------------------------------------------------------------
# the wheel, installed into a fresh venv


@prebuilt(first=True)
def installed_wheel(builds: Prebuilds):
    """The wheel built from this checkout, installed with constraints.txt into a fresh venv (pip
    finds the pinned packages in its cache), then `runlens build` and `runlens report` over a copy
    of the sample from an empty folder."""
    root = builds.mktemp("wheel")
    quiet = {"capture_output": True, "text": True, "check": False}
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(root / "dist"), str(REPO)], **quiet
    )
    if wheel.returncode != 0:
        return wheel, None, root
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (built,) = (root / "dist").glob("runlens-*.whl")
    install = subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--disable-pip-version-check",
            "-q",
            str(built),
            "-c",
            str(REPO / "constraints.txt"),
        ],
        **quiet,
    )
    if install.returncode != 0:
        return install, None, root
    shutil.copytree(SAMPLE, root / "logs")
    work = root / "empty"
    work.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RUNLENS_", "DBT_", "PYTHON"))}
    env["RUNLENS_CACHE_DIR"] = str(root / "cache")
    command = str(venv / "bin" / "runlens")
    build = subprocess.run([command, "build", "--logs", str(root / "logs")], cwd=work, env=env, **quiet)
    report = subprocess.run([command, "report"], cwd=work, env=env, **quiet)
    return build, report, root


def test_the_wheel_gives_a_runlens_command_that_works_from_any_folder(installed_wheel):
    build, report, root = installed_wheel
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert report is not None and report.returncode == 0, report.stderr[-3000:]
    work = root / "empty"
    assert build.stdout.startswith(f"runlens: built {work / DATABASE} from ")
    assert (work / "reports" / "index.md").exists()
    assert len(list((work / "reports").rglob("profile.md"))) >= 3
    site = next((root / "venv" / "lib").glob("python3*/site-packages"))
    project = site / "runlens" / "project"
    assert (project / "dbt_project.yml").exists() and (project / "models").is_dir()
    assert not (project / "target").exists() and not (project / "logs").exists()  # dbt wrote to the cache
    assert list((root / "cache").glob("*/target/partial_parse.msgpack"))
    assert {path.name for path in work.iterdir()} == {DATABASE, "reports"}  # no lock file left behind


def test_the_wheel_names_the_extra_by_the_package_name(installed_wheel):
    """Installed from a wheel (without the importer extra), the missing extra is runlens' own,
    from the package index (a checkout's line: tests/command/test_messages.py)."""
    _build, _report, root = installed_wheel
    tensorboard = REPO / "tests" / "fixtures" / "importers" / "lightning" / "lightning_logs"
    result = subprocess.run(
        [str(root / "venv" / "bin" / "runlens"), "import", "--format", "tensorboard", str(tensorboard)]
        + ["--into", str(root / "imported")],
        cwd=root / "empty",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "runlens: reading TensorBoard logs needs the importer extra: `pip install 'runlens[importers]'`\n"
    )


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_the_command_answers_help_and_version(flag):
    result = runlens_command(flag)
    assert result.returncode == 0 and result.stdout.startswith(("usage: runlens", "runlens "))
