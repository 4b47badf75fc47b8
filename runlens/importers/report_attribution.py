"""Which run a framework profiler's report belongs to, and the profile it becomes there.

A report (Lightning's SimpleProfiler or AdvancedProfiler, a Hugging Face trainer_state.json) states
seconds per action but no time and no run: it can only be laid on a run whose timeline other files
of this import give (its TensorBoard logs, W&B or MLflow run). After every source is read, the
runner asks `attach` to give each report the run of its folder, in this order:

1. a run folder that holds it (the report lies in it or below it: Lightning's default dirpath is the
   logger's version folder); the nearest such folder counts;
2. else the report's own folder, then the folder above it, when it holds exactly one run folder below
   it (a `dirpath` beside the logger's folder; an HF `checkpoint-N/` beside the output_dir's `runs/`).

A folder that holds several runs, or none up to there, gives the report no run: it is rejected
(`report_without_run`) and named in a note. Of the reports a run takes, one is written (the lowest
rank's, input_contract.md "Ranks"; of HF states, the latest): a note names the others; a run that
has profiles of its own (a text log's) keeps them, and a note names the report.

The profile: `ts` is the run's last event, `wall_seconds` from its last session's run_start to then,
`final` true, and an approximation that starts with UNTIMED (input_contract.md names the prefix):
its sections cover the whole run and are not laid on its intervals. The rule: docs/importers.md,
"Profiler reports: which run".
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .common import EVENT_ORDER, ProfilerReport, Reject, Run, format_ts

UNTIMED = "profile from a report without timestamps"
TIMELINE_EVENTS = frozenset(EVENT_ORDER) - {"profile", "sample"}


@dataclass
class Attached:
    rejects: list[Reject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[tuple[ProfilerReport, str]] = field(default_factory=list)  # (report, run id)


def _folder(source_key: str) -> Path:
    path = Path(source_key)
    return path if path.is_dir() else path.parent


def run_folders(runs_of: dict[str, list[Run]]) -> dict[Path, list[Run]]:
    """The folder of each source that gave runs with a timeline, and those runs."""
    folders: dict[Path, list[Run]] = {}
    for key, runs in runs_of.items():
        timed = [run for run in runs if any(event.event in TIMELINE_EVENTS for event in run.events)]
        if timed:
            folders.setdefault(_folder(key), []).extend(timed)
    return folders


def run_holding(path: Path, folders: dict[Path, list[Run]]) -> tuple[Run | None, str]:
    """The run of the file at path by the rule above (folders: run_folders), or None and why not."""
    real = Path(os.path.realpath(path))
    holding = [folder for folder in folders if real.is_relative_to(folder)]
    if holding:
        nearest = max(holding, key=lambda folder: len(folder.parts))
        if len(folders[nearest]) == 1:
            return folders[nearest][0], f"it lies in the folder of run {folders[nearest][0].run_id}"
        return None, f"the folder that holds it ({nearest}) holds {len(folders[nearest])} runs"
    for above in (real.parent, real.parent.parent):
        runs = [run for folder, found in folders.items() if folder.is_relative_to(above) for run in found]
        if len(runs) == 1:
            return runs[0], f"the only run below {above} is {runs[0].run_id}"
        if runs:
            ids = ", ".join(sorted(run.run_id for run in runs))
            return None, f"the folder above it ({above}) holds several runs ({ids}): which one wrote it is not known"
    return None, "no run of this import lies in its folder or the folder above it"


def _profile_fields(run: Run, report: ProfilerReport) -> tuple[int, dict, str]:
    timeline = [event for event in run.events if event.event in TIMELINE_EVENTS]
    last = max(event.ts_us for event in timeline)
    starts = [event.ts_us for event in timeline if event.event == "run_start" and event.ts_us <= last]
    begin = max(starts) if starts else min(event.ts_us for event in timeline)
    fields: dict = {
        "wall_seconds": (last - begin) / 1_000_000,
        "sections": report.sections,
        "final": True,
        "section_sources": report.section_sources,
        "wall_seconds_source": f"the run's last session, from its run_start ({format_ts(begin)}) to its last event",
    }
    if report.rank is not None:
        fields["rank"] = report.rank
    why = (
        f"{UNTIMED} ({report.label}): its ts is the run's last event and its sections cover the whole run, "
        "not laid on its intervals"
    )
    return last, fields, why


def attach(reports: list[ProfilerReport], runs_of: dict[str, list[Run]]) -> Attached:
    """Give each report its run and add the profile it becomes to that run (see the module docstring)."""
    attached = Attached()
    folders = run_folders(runs_of)
    taken: dict[str, list[ProfilerReport]] = {}
    runs_by_id: dict[str, Run] = {}
    whys: dict[str, str] = {}
    for report in reports:
        run, why = run_holding(report.path, folders)
        if run is None:
            detail = f"{why}; a report has no timestamps, so its sections are not written"
            attached.rejects.append(Reject(report.source_format, report.shown, "report_without_run", detail))
            attached.notes.append(f"{report.shown}: {detail}")
            continue
        taken.setdefault(run.run_id, []).append(report)
        runs_by_id[run.run_id] = run
        whys[report.shown] = why
    for run_id, candidates in sorted(taken.items()):
        run = runs_by_id[run_id]
        chosen, *others = sorted(candidates, key=lambda report: (report.order, report.shown))
        for other in others:
            attached.notes.append(
                f"{other.shown}: run {run_id} takes one report, {chosen.shown} (the lowest rank's, the latest state): "
                "not written"
            )
        if any(event.event == "profile" for event in run.events):
            attached.notes.append(f"{chosen.shown}: run {run_id} has profiles of its own: the report is not written")
            continue
        ts_us, fields, why = _profile_fields(run, chosen)
        run.add("profile", ts_us, chosen.shown, why, **fields)
        attached.written.append((chosen, run_id))
        words = f"the sections of {chosen.label} belong to run {run_id}: {whys[chosen.shown]}"
        attached.notes.append(f"{chosen.shown}: {words}")
    return attached
