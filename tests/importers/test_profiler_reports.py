"""Framework profiler reports become their run's profile (runlens/importers/lightning_profiler.py,
hf_trainer_state.py, report_attribution.py), against real tiny trainings (tests/support/
profiler_trainings.py) and broken reports.

The expected sections are read off the files the trainings wrote, here, with a plain split of each
table row (SimpleProfiler), a regex over cProfile's `in X seconds` lines (AdvancedProfiler) and
json.load (trainer_state.json), and bounded below by the sleeps the trainings forced: each
validation_step sleeps 0.05 s, 6 times (the sanity check's 2 batches, then 2 per epoch), so
evaluation >= 0.30 s (AdvancedProfiler states its seconds to the ms: less 0.001 s for the rounding
of its two actions).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from runlens.importers.common import REJECTS_FILE
from runlens.importers.runner import run_import
from tests.support.importer_fixtures import importer_extra
from tests.support.pipeline import REPO
from tests.support.profiler_trainings import (
    EVAL_SLEEP,
    HF_EVAL_STEPS,
    HF_MAX_STEPS,
    VALIDATION_CALLS,
    VALIDATION_SLEEP,
    train_lightning,
    train_transformers,
)

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())
UNTIMED = "profile from a report without timestamps"
STRATEGY_VALIDATION = "[Strategy]SingleDeviceStrategy.validation_step"


@pytest.fixture(scope="module")
def trainings(tmp_path_factory):
    """One SimpleProfiler training (report in the logger's version folder) and one AdvancedProfiler
    training whose dirpath lies beside the logger's folder (`profiler/` next to `tb/`)."""
    importer_extra("tensorboard")
    root = tmp_path_factory.mktemp("profiled")
    simple = train_lightning(root / "simple", "simple")
    advanced = train_lightning(root / "advanced", "advanced", dirpath=root / "advanced" / "profiler")
    return root, simple, advanced


def lines_of(out: Path) -> list[dict]:
    files = [path for path in sorted(out.rglob("*.jsonl")) if not path.name.startswith("_")]
    return [json.loads(line) for path in files for line in path.read_text().splitlines()]


def rejects_of(out: Path) -> list[dict]:
    path = out / REJECTS_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def simple_totals(report: Path) -> dict[str, float]:
    """Action -> the `Total time (s)` cell (the fourth), split by hand."""
    totals = {}
    for line in report.read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if line.startswith("|") and cells[1] != "Action":
            totals[cells[1]] = float(cells[4])  # `Total`: the whole profiled fit
    return totals


def advanced_seconds(report: Path) -> dict[str, float]:
    text = report.read_text()
    pairs = re.findall(r"Profile stats for: (.*)\n\s+\d+ function calls.* in ([\d.]+) seconds", text)
    return {action: float(seconds) for action, seconds in pairs}


def the_profile(lines: list[dict], run_suffix: str) -> dict:
    (profile,) = [line for line in lines if line["event"] == "profile" and line["run_id"].endswith(run_suffix)]
    return profile


def test_simple_profiler_report_becomes_the_sections_of_its_run(trainings, tmp_path):
    root, report, _ = trainings
    outcome, _ = run_import([root / "simple"], tmp_path / "out")
    assert not outcome.rejects
    lines = lines_of(tmp_path / "out")
    for line in lines:
        jsonschema.validate(line, SCHEMA)
    profile = the_profile(lines, "version_0")
    totals = simple_totals(report)
    expected = {
        "train_step": totals["run_training_batch"],
        "data_loading": totals["[_TrainingEpochLoop].train_dataloader_next"],
        "evaluation": totals[STRATEGY_VALIDATION] + totals["[_EvaluationLoop].val_next"],
        "checkpoint_save": totals["save_checkpoint"],
    }
    assert profile["sections"] == pytest.approx(expected, abs=1e-6)
    assert profile["sections"]["evaluation"] >= VALIDATION_CALLS * VALIDATION_SLEEP
    # no second twice: the chosen actions do not nest, so they add up to no more than the whole
    # profiled fit (the report's `Total` row), however slow the machine
    assert sum(expected.values()) <= totals["Total"]
    run_end = next(line for line in lines if line["event"] == "run_end")
    run_start = next(line for line in lines if line["event"] == "run_start")
    assert profile["ts"] == run_end["ts"] and profile["final"] is True
    assert profile["is_approximate"] and profile["approximation"].startswith(UNTIMED)
    assert profile["source_path"] == str(report)
    assert "run_start (" + run_start["ts"] + ")" in profile["wall_seconds_source"]


def test_advanced_profiler_report_beside_the_logger_folder(trainings, tmp_path):
    root, _, report = trainings
    assert report.parent.name == "profiler" and (report.parent.parent / "tb").is_dir()
    outcome, _ = run_import([root / "advanced"], tmp_path / "out")
    assert not outcome.rejects
    profile = the_profile(lines_of(tmp_path / "out"), "version_0")
    seconds = advanced_seconds(report)
    step_hooks = ("training_step", "backward", "optimizer_step", "optimizer_zero_grad", "on_before_zero_grad")
    step_hooks += ("on_before_backward", "on_after_backward", "on_before_optimizer_step", "configure_gradient_clipping")
    train_step = seconds["run_training_batch"] + sum(
        value
        for action, value in seconds.items()
        if action.startswith(("[Strategy]", "[LightningModule]")) and action.rsplit(".", 1)[-1] in step_hooks
    )
    expected = {
        "train_step": train_step,
        "data_loading": seconds["[_TrainingEpochLoop].train_dataloader_next"],
        "evaluation": seconds[STRATEGY_VALIDATION] + seconds["[_EvaluationLoop].val_next"],
        "checkpoint_save": seconds["save_checkpoint"],
    }
    assert profile["sections"] == pytest.approx(expected, abs=1e-6)
    assert profile["sections"]["evaluation"] >= VALIDATION_CALLS * VALIDATION_SLEEP - 0.001
    assert "AdvancedProfiler" in profile["approximation"]
    assert any("the only run below" in note for note in outcome.notes)


def test_a_report_no_run_takes_is_listed(tmp_path):
    """A CSV logger's folder: metrics.csv has no times, so no run comes out, and the report is a reject."""
    report = train_lightning(tmp_path / "csv_only", "simple", logger="csv")
    outcome, _ = run_import([tmp_path / "csv_only"], tmp_path / "out")
    assert [(r.source_path, r.reason) for r in outcome.rejects] == [(str(report), "report_without_run")]
    (listed,) = rejects_of(tmp_path / "out")
    assert listed["reason"] == "report_without_run" and "no run of this import" in listed["detail"]


def test_a_cut_report_and_a_broken_state_are_listed_with_their_reason(trainings, tmp_path):
    root, simple, advanced = trainings
    folder = shutil.copytree(root / "simple", tmp_path / "in")
    cut = folder / simple.relative_to(root / "simple")
    text = simple.read_text()
    cut.write_text(text[: len(text) // 2])  # ends inside the table
    (cut.parent / "trainer_state.json").write_text('{"log_history": [')
    adv_cut = folder / "fit-adv.txt"
    adv_text = advanced.read_text()
    adv_cut.write_text(adv_text[: adv_text.index("run_training_batch")] + "Profile stats for: run_training_batch\n")
    outcome, _ = run_import([folder], tmp_path / "out")
    reasons = {(Path(r.source_path).name, r.reason) for r in outcome.rejects}
    assert reasons == {
        ("fit-perf.txt", "bad_profiler_report"),
        ("trainer_state.json", "bad_profiler_report"),
        ("fit-adv.txt", "bad_profiler_report"),
    }
    assert not [line for line in lines_of(tmp_path / "out") if line["event"] == "profile"]
    assert len(rejects_of(tmp_path / "out")) == 3


def test_hf_trainer_state_gives_evaluation_and_training(tmp_path):
    importer_extra("tensorboard")
    output = train_transformers(tmp_path / "hf")
    state = json.loads((output / "trainer_state.json").read_text())
    evaluations = [entry["eval_runtime"] for entry in state["log_history"] if "eval_runtime" in entry]
    (train_runtime,) = [entry["train_runtime"] for entry in state["log_history"] if "train_runtime" in entry]
    assert len(evaluations) == HF_MAX_STEPS // HF_EVAL_STEPS
    outcome, _ = run_import([tmp_path / "hf"], tmp_path / "out")
    assert not outcome.rejects
    profile = the_profile(lines_of(tmp_path / "out"), "")
    assert profile["source_path"] == str(output / "trainer_state.json")  # the latest state, with train_runtime
    assert profile["sections"]["evaluation"] == pytest.approx(sum(evaluations), abs=1e-6)
    assert profile["sections"]["train"] == pytest.approx(train_runtime - sum(evaluations), abs=1e-6)
    # 4 evaluations of 2 batches of 8, each forward sleeping 0.05 s (eval_runtime: to 0.1 ms)
    assert profile["sections"]["evaluation"] >= 4 * 2 * EVAL_SLEEP - 0.001
    # the checkpoints' states are earlier states of the same training: named, not written
    assert sum("takes one report" in note for note in outcome.notes) == 2


def test_a_page_says_its_sections_come_from_a_report_without_timestamps(trainings, tmp_path):
    """Imported, built by the real project and rendered: the run's sections are on its page, which
    says where they came from (def_untimed_reports), and they are in its goodput (evaluation)."""
    from runlens.report.render import render_reports
    from tests.support.pipeline import DATABASE, PROJECT, build

    root, _, _ = trainings
    raw = tmp_path / "raw"
    outcome, _ = run_import([root / "simple"], raw)
    assert not outcome.rejects
    build(PROJECT, raw, tmp_path / DATABASE)
    written = render_reports(tmp_path / DATABASE, tmp_path / "reports")
    (page,) = [path.read_text() for path in written if path.name == "profile.md"]
    sections = page.split("## Time by profiler section", 1)[1].split("\n## ", 1)[0]
    assert (
        "1 run takes its sections from a framework profiler's report without timestamps (Lightning's profiler,"
        " a Hugging Face `trainer_state.json`), placed at the run's last event: they cover the whole run and are"
        " not laid on its intervals (`def_untimed_reports`)." in sections
    )
    for section in ("train_step", "evaluation", "data_loading", "checkpoint_save"):
        assert f"| {section} |" in sections
    goodput = page.split("## Goodput", 1)[1].split("\n## ", 1)[0]
    assert "evaluation" in goodput.splitlines()[4]  # the table's header row names the bucket
