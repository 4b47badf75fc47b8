"""A Hugging Face Trainer's trainer_state.json -> the evaluation and training sections of its run.

The Trainer writes `trainer_state.json` into each `checkpoint-<step>/` folder of its output_dir when
it saves (and into the output_dir itself on `trainer.save_state()`). Its `log_history` is cumulative
(each state holds every entry before it) and holds no wall-clock time, but each evaluation's entry
states its `eval_runtime` (`eval_<name>_runtime` for a named eval set: the evaluation loop, timed by
`Trainer.evaluate`, rounded to 0.1 ms), and the entry written when `train()` ends states
`train_runtime` (from just before `on_train_begin` to the end of the training loop: the steps with
their data loading, the evaluations, the checkpoint saves and the logging of that `train()` call).

Sections (the seed goodput_section_buckets maps both): `evaluation`, the sum of every eval runtime
of log_history; `train`, when a train_runtime is stated, that train_runtime less the eval runtimes
logged before it (never below 0). The state has no timestamps: the runner gives it the run whose
folder holds it (report_attribution.py), and of a run's states it writes the one with the highest
`global_step`. The rules: docs/importers.md, "Hugging Face trainer_state.json".
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from .common import Options, Outcome, ProfilerReport, Reject, display_path
from .importer import Claimed, Claims, Importer, Source, Walk

FORMAT = "hf_trainer_state"
FILE_NAME = "trainer_state.json"
EVAL_RUNTIME = re.compile(r"^eval(?:_.+)?_runtime$")


def _seconds(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def read_state(path: Path, options: Options) -> Outcome:
    """The sections one trainer_state.json states, or its reject or note."""
    outcome = Outcome()
    shown = display_path(path)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        outcome.rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
        return outcome
    except json.JSONDecodeError as error:
        outcome.rejects.append(Reject(FORMAT, shown, "bad_profiler_report", f"not JSON: {error}"))
        return outcome
    history = state.get("log_history") if isinstance(state, dict) else None
    if not isinstance(history, list):
        outcome.rejects.append(Reject(FORMAT, shown, "bad_profiler_report", "no `log_history` list"))
        return outcome
    evaluations: list[float] = []
    before_train_end: list[float] = []
    train_runtime: float | None = None
    for entry in history:
        if not isinstance(entry, dict):
            continue
        for key, value in entry.items():
            seconds = _seconds(value)
            if EVAL_RUNTIME.match(key) and seconds is not None:
                evaluations.append(seconds)
        runtime = _seconds(entry.get("train_runtime"))
        if runtime is not None:
            train_runtime = runtime
            before_train_end = list(evaluations)
    if not evaluations and train_runtime is None:
        outcome.notes.append(f"{shown}: states no eval_runtime and no train_runtime: no section to write")
        return outcome
    evaluation = round(math.fsum(evaluations), 6)
    sections = {"evaluation": evaluation}
    sources = {"evaluation": f"the sum of the {len(evaluations)} eval runtime(s) of log_history"}
    if train_runtime is not None:
        sections["train"] = round(max(train_runtime - math.fsum(before_train_end), 0.0), 6)
        sources["train"] = (
            f"train_runtime less the {len(before_train_end)} eval runtime(s) logged before it: the training loop's "
            "steps with their data loading, checkpoint saves and logging"
        )
    step = state.get("global_step")
    step = step if isinstance(step, int) and not isinstance(step, bool) else -1
    label = "the Hugging Face Trainer's trainer_state.json"
    order = (0, -step, -len(history))  # the latest state: the highest step, then the longest history
    outcome.reports.append(ProfilerReport(FORMAT, path, label, sections, sources, None, order))
    return outcome


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per trainer_state.json (the runner gives it the run of its folder)."""
    states = [path for path in walk.files if path.name == FILE_NAME and path.is_file()]
    return Claims(sources=[Source(IMPORTER, path, walk.base, [path]) for path in states])


def read(source: Source, options: Options) -> Outcome:
    return read_state(source.path, options)


IMPORTER = Importer(FORMAT, "hf_trainer_state", "Hugging Face trainer_state.json", None, claim, read)
