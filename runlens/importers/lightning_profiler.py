"""Lightning's profiler reports -> the sections of the run whose folder holds them.

`Trainer(profiler=SimpleProfiler(dirpath=..., filename=...))` (or `AdvancedProfiler`) writes, when a
stage ends, `{dirpath}/{stage}-{filename}[-{local rank}].txt` (dirpath: the logger's log_dir when not
given; the rank suffix only with more than one process), opened for appending: a second fit with the
same profiler adds a second report to the file.

- SimpleProfiler: `FIT Profiler Report`, then a table `Action | Mean duration (s) | Num calls |
  Total time (s) | Percentage %` (`extended=False`: `Action | Mean duration (s) | Total time (s)`),
  a `Total` row first (the profiler's lifetime), then one row per action. An action's time includes
  the actions Lightning runs inside it (run_training_epoch holds run_training_batch, which holds the
  optimizer step, which holds training_step and backward).
- AdvancedProfiler: `FIT Profiler Report`, then per action `Profile stats for: <action>[ rank: N]`
  and cProfile's `N function calls (M primitive calls) in X seconds` (X to the millisecond). Starting
  an action disables every other action's cProfile, and stopping it enables none: an action's
  seconds are its own, without those of the actions inside it (nor what follows them), so no second
  is in two actions.

Of the actions, these become sections (no second counted twice; the seed goodput_section_buckets
maps each name): `train_step` (training), `data_loading`, `evaluation`, `checkpoint_save`. Which
actions each sums, and why: docs/importers.md, "Lightning's profiler reports". A report has no
timestamps: the runner gives it its run (report_attribution.py). Reports of other stages (validate,
test, predict) are no training's: a note names them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .common import Options, Outcome, ProfilerReport, Reject, display_path
from .importer import Claimed, Claims, Importer, Source, Walk

FORMAT = "lightning_profiler"
HEADER = re.compile(r"^(?:(?P<stage>[A-Z_]+) )?Profiler Report\s*$")
STATS_FOR = re.compile(r"^Profile stats for: (?P<action>.*?)(?: rank: (?P<rank>\d+))?\s*$")
CALLS = re.compile(r"^\s*\d+ function calls(?: \(\d+ primitive calls\))? in (?P<seconds>\d+(?:\.\d*)?) seconds\s*$")
RANK_SUFFIX = re.compile(r"^[a-z_]+-.+-(?P<rank>\d+)$")
SIMPLE_COLUMNS = ("Mean duration (s)", "Total time (s)")
SEPARATOR = re.compile(r"^-+\s*$")

# The hooks Lightning runs inside run_training_batch (automatic optimization): with AdvancedProfiler
# each has its own seconds, which together are the training step's.
STEP_HOOKS = frozenset(
    {
        "training_step",
        "backward",
        "optimizer_step",
        "optimizer_zero_grad",
        "on_before_zero_grad",
        "on_before_backward",
        "on_after_backward",
        "on_before_optimizer_step",
        "configure_gradient_clipping",
    }
)
SECTION_WORDS = {
    "train_step": "run_training_batch (the forward, backward and optimizer step of each batch)",
    "data_loading": "[_TrainingEpochLoop].train_dataloader_next (fetching each training batch)",
    "evaluation": "[Strategy]*.validation_step and [_EvaluationLoop].val_next (each validation batch and its "
    "fetch, the sanity check's included)",
    "checkpoint_save": "save_checkpoint (Trainer.save_checkpoint)",
}


class BadReport(ValueError):
    """A report that does not parse; the message says where and why."""


def _hook(action: str) -> str:
    return action.rsplit(".", 1)[-1] if action.startswith("[") else action


def section_of(action: str, advanced: bool) -> str | None:
    """The section an action's seconds count in, or None (left in no section)."""
    hook = _hook(action)
    if action == "save_checkpoint":
        return "checkpoint_save"
    if action.endswith("].train_dataloader_next"):
        return "data_loading"
    if action.startswith("[Strategy]") and hook == "validation_step" or action.endswith("].val_next"):
        return "evaluation"
    if action == "run_training_batch":
        return "train_step"
    if advanced and action.startswith(("[Strategy]", "[LightningModule]")) and hook in STEP_HOOKS:
        return "train_step"
    return None


def _reports(text: str) -> list[tuple[int, str | None, list[str]]]:
    """The reports a file holds: (first line number, stage, their lines after the header)."""
    found: list[tuple[int, str | None, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = HEADER.match(line)
        if match:
            found.append((number, match.group("stage"), []))
        elif found:
            found[-1][2].append(line)
    return found


def _simple(lines: list[str], first: int) -> dict[str, float]:
    """Action -> total seconds of a SimpleProfiler table (any column order, with or without the
    extended columns, rows with or without their leading `|`)."""
    columns: list[str] | None = None
    totals: dict[str, float] = {}
    closed = False
    for offset, line in enumerate(lines, start=first + 1):
        if not line.strip():
            continue
        if SEPARATOR.match(line):
            closed = columns is not None and bool(totals)
            continue
        if "|" not in line:
            raise BadReport(f"line {offset}: no table row: {line[:120]!r}")
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if columns is None:
            if cells[0] != "Action" or not all(name in cells for name in SIMPLE_COLUMNS):
                raise BadReport(f"line {offset}: no SimpleProfiler header (Action | Mean duration (s) | ...)")
            columns = cells
            continue
        closed = False
        numbers = cells[-(len(columns) - 1) :]
        action = "|".join(cells[: len(cells) - len(numbers)]).strip()
        if len(cells) < len(columns) or not action:
            raise BadReport(f"line {offset}: {len(cells)} cell(s) where the header has {len(columns)}")
        total_cell = numbers[columns.index("Total time (s)") - 1]
        try:
            seconds = float(total_cell)
        except ValueError:
            raise BadReport(f"line {offset}: total time {total_cell!r} is no number") from None
        if not math.isfinite(seconds) or seconds < 0:
            raise BadReport(f"line {offset}: total time {total_cell!r} is no number of seconds")
        if action != "Total":
            totals[action] = totals.get(action, 0.0) + seconds
    if columns is None:
        raise BadReport(f"line {first}: a report header with no table after it")
    if not closed:
        raise BadReport("the table does not end with its closing line of dashes (the file was cut short?)")
    return totals


def _advanced(lines: list[str], first: int) -> tuple[dict[str, float], int | None]:
    """Action -> seconds of an AdvancedProfiler report, and the rank its headers name."""
    totals: dict[str, float] = {}
    rank: int | None = None
    action: str | None = None
    for offset, line in enumerate(lines, start=first + 1):
        match = STATS_FOR.match(line)
        if match:
            if action is not None:
                raise BadReport(f"line {offset}: the stats of {action!r} end before cProfile's `function calls` line")
            action = match.group("action")
            if match.group("rank") is not None:
                rank = int(match.group("rank"))
            continue
        calls = CALLS.match(line)
        if calls and action is not None:
            totals[action] = totals.get(action, 0.0) + float(calls.group("seconds"))
            action = None
    if action is not None:
        raise BadReport(f"the stats of {action!r} end before cProfile's `function calls` line (cut short?)")
    return totals, rank


def _rank_of(path: Path) -> int | None:
    """`fit-perf-1.txt` -> 1: Lightning's local-rank suffix (none with a single process)."""
    match = RANK_SUFFIX.match(path.stem)
    return int(match.group("rank")) if match else None


def read_report(path: Path, options: Options) -> Outcome:
    """The sections of a report file's last fit report, or its reject or note."""
    outcome = Outcome()
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        outcome.rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
        return outcome
    reports = _reports(text)
    fits = [report for report in reports if report[1] in (None, "FIT")]
    if not fits:
        stages = sorted({report[1] or "" for report in reports})
        outcome.notes.append(
            f"{shown}: a Lightning profiler report of the {', '.join(stages).lower() or 'unknown'} stage: "
            "no training's, not read"
        )
        return outcome
    first, _, lines = fits[-1]
    if len(fits) > 1:
        outcome.notes.append(
            f"{shown}: {len(fits)} fit reports appended to one file: the last (line {first}) is read; a later fit "
            "of the same profiler reports the earlier one's actions again"
        )
    advanced = any(STATS_FOR.match(line) for line in lines)
    try:
        if advanced:
            actions, rank = _advanced(lines, first)
        else:
            actions, rank = _simple(lines, first), None
    except BadReport as error:
        outcome.rejects.append(Reject(FORMAT, shown, "bad_profiler_report", str(error)))
        return outcome
    if not actions:
        outcome.rejects.append(Reject(FORMAT, shown, "bad_profiler_report", "a report with no action in it"))
        return outcome
    sections: dict[str, list[float]] = {}
    counted: dict[str, list[str]] = {}
    for action, seconds in actions.items():
        section = section_of(action, advanced)
        if section is not None:
            sections.setdefault(section, []).append(seconds)
            counted.setdefault(section, []).append(action)
    profiler = "AdvancedProfiler" if advanced else "SimpleProfiler"
    sources = {
        section: f"{SECTION_WORDS[section]}: {len(counted[section])} action(s) of {profiler}'s report"
        for section in sorted(sections)
    }
    rank = rank if rank is not None else _rank_of(path)
    outcome.reports.append(
        ProfilerReport(
            FORMAT,
            path,
            f"Lightning's {profiler} report",
            {section: round(math.fsum(values), 6) for section, values in sorted(sections.items())},
            sources,
            rank,
            (rank or 0,),
        )
    )
    return outcome


# ---------------------------------------------------------------------------------------------
# the importer


def looks_like_report(path: Path) -> bool:
    """For --format auto: a *.txt file whose first line that is not blank is `<STAGE> Profiler Report`."""
    if path.suffix != ".txt":
        return False
    try:
        with path.open("r", encoding="utf-8", errors="replace") as stream:
            head = stream.read(4096)
    except OSError:
        return False
    first = next((line for line in head.splitlines() if line.strip()), "")
    return HEADER.match(first) is not None


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per report file, wherever it lies (the runner gives it the run of its folder)."""
    return Claims(sources=[Source(IMPORTER, path, walk.base, [path]) for path in walk.files if looks_like_report(path)])


def read(source: Source, options: Options) -> Outcome:
    return read_report(source.path, options)


IMPORTER = Importer(FORMAT, "lightning_profiler", "Lightning profiler report", None, claim, read)
