"""Profiler traces through `runlens import` and `runlens profile` (runlens/importers/profiler_traces.py,
trace_placement.py): a trace in a tracker's run folder (a TensorBoard log dir's `plugins/profile/`,
where torch.profiler's tensorboard_trace_handler and TensorBoard's profiler plugin put them) is
copied beside that run's imported log and the build gives it that run; a trace no run folder holds
is a run of its own; importing again copies nothing new, and a changed trace anew (a trace gone
from the PATH stays in RAW_DIR, as any source's logs do). The
training is real (torch.profiler on the CPU, torch's SummaryWriter); its data path sleeps, so each
profiled step's data loading is at least LOAD_SECONDS (tests/support/trace_trainings.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from runlens.importers.runner import run_import
from tests.support import kineto_traces
from tests.support.importer_fixtures import importer_extra
from tests.support.pipeline import DATABASE, PROJECT, build, runlens_command
from tests.support.trace_trainings import ACTIVE, LOAD_SECONDS, train_with_tensorboard


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A TensorBoard run profiled into its own log dir, and a trace in a folder of its own."""
    importer_extra("tensorboard")
    root = tmp_path_factory.mktemp("tracked")
    train_with_tensorboard(root / "tb" / "version_0")
    kineto_traces.write(root / "alone" / "rank-0.pt.trace.json", kineto_traces.current_trace())
    return root


def traces_below(path: Path) -> list[str]:
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*.json*") if ".trace" in p.name)


def test_a_trace_in_a_run_folder_is_that_run_s_and_another_a_run_of_its_own(folder, tmp_path):
    out = tmp_path / "raw"
    outcome, line = run_import([folder], out)
    assert "2 profiler traces copied" in line
    (log,) = out.glob("tensorboard/**/*.jsonl")
    run_id = json.loads(log.read_text().splitlines()[0])["run_id"]
    (profiled,) = (folder / "tb" / "version_0" / "plugins" / "profile").iterdir()
    beside = log.with_name(log.name.removesuffix(".jsonl") + ".traces")
    # kept below the run's log with its path below the run folder; the other below traces/<PATH's name>
    assert traces_below(out) == sorted(
        [
            (beside / "plugins" / "profile" / profiled.name).relative_to(out).as_posix(),
            f"traces/{folder.name}/alone/rank-0.pt.trace.json",
        ]
    )
    assert [note for note in outcome.notes if "a run of its own" in note] == [
        f"{folder / 'alone' / 'rank-0.pt.trace.json'}: no run of this import lies in a folder that holds it: "
        f"copied to {out / 'traces' / folder.name / 'alone' / 'rank-0.pt.trace.json'}, a run of its own in the build"
    ]
    build(PROJECT, out, tmp_path / DATABASE)
    marts = duckdb.connect(str(tmp_path / DATABASE), read_only=True)
    runs = dict(marts.execute("select file_path, run_id from fct_traces").fetchall())
    assert runs[(beside / "plugins" / "profile" / profiled.name).relative_to(out).as_posix()] == run_id
    assert runs[f"traces/{folder.name}/alone/rank-0.pt.trace.json"].startswith("trace:traces/")
    # the profiler recorded ACTIVE steps, the last cut short by the profiler's stop (def_profiled_steps);
    # with no workers the host makes each batch inside the step: at least LOAD_SECONDS of loading
    steps = marts.execute(
        "select wall_seconds, data_loading_seconds from fct_run_steps where run_id = ? order by step_label", [run_id]
    ).fetchall()
    assert len(steps) == ACTIVE - 1
    assert all(loading >= LOAD_SECONDS and wall >= loading for wall, loading in steps)


def test_importing_again_copies_nothing_new_and_a_changed_trace_anew(folder, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(folder, source, copy_function=shutil.copy2)
    out = tmp_path / "raw"
    run_import([source], out)
    copied = {path: path.stat().st_mtime_ns for path in out.rglob("*.pt.trace.json")}
    assert len(copied) == 2
    run_import([source], out)
    assert {path: path.stat().st_mtime_ns for path in out.rglob("*.pt.trace.json")} == copied
    changed = kineto_traces.write(source / "alone" / "rank-0.pt.trace.json", kineto_traces.current_trace(rank=1))
    os.utime(changed, ns=(changed.stat().st_atime_ns, changed.stat().st_mtime_ns + 10**9))
    run_import([source], out)
    (copy,) = out.glob("traces/**/rank-0.pt.trace.json")
    assert copy.read_bytes() == changed.read_bytes()
    assert copy.stat().st_mtime_ns == changed.stat().st_mtime_ns


def test_runlens_profile_takes_a_folder_of_traces_alone(tmp_path):
    traces = tmp_path / "w0"
    kineto_traces.write(traces / "resnet.pt.trace.json", kineto_traces.current_trace())
    result = runlens_command("profile", traces, "--into", tmp_path / "raw", "--reports", tmp_path / "pages")
    assert result.returncode == 0, result.stderr
    assert "1 profiler trace copied" in result.stderr
    page = (tmp_path / "pages" / "traces-w0" / "profile.md").read_text(encoding="utf-8")
    assert "## Inside a step" in page
