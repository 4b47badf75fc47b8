"""Which run the samples of a cluster GPU log (nvidia-smi CSV, DCGM dump) belong to.

A cluster log names no run: its importer returns its samples alone (`Outcome.sample_logs`), and
after every source is read the runner asks `decide` for each log's run, in this order:

1. `--samples-run RUN_ID` (Options.samples_run): every cluster log of the import is that run's;
2. its folder: a log below a run folder of this import (a W&B run folder, an MLflow run folder, a
   TensorBoard run folder) or beside a run's file (a text log, an MLflow database) is that run's;
   the nearest such folder counts, and when it holds several runs their time windows choose;
3. its time: the one run, of this import or already in --into (known_runs.py), whose window
   (first run_start to run_end, else to its last event) holds the log's first and last sample,
   and whose host, when both name one, is the log's.

A log with no such run, or several, is rejected with its reason and named in a note; nothing is
dropped without a word. The rule: docs/importers.md, "Cluster GPU logs: which run".
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from runlens.plural import plural

from .common import Reject, Run, SampleLog, format_ts, run_file, safe_component

# a source named by a file whose folder is its run's (W&B: the run file in its run folder)
FILE_NAMES_RUN_FOLDER = frozenset({"wandb"})


class SamplesRunError(RuntimeError):
    """--samples-run names a run neither this import nor --into holds; one line says what to do."""


@dataclass(frozen=True)
class Window:
    """A run as attribution sees it: its time window, the hosts it names, and the folder whose
    cluster logs are its (`below`: anywhere below it; else beside its file only)."""

    run_id: str
    start_us: int
    end_us: int
    hosts: frozenset[str] = frozenset()
    folder: Path | None = None
    below: bool = False

    def holds(self, log: SampleLog) -> bool:
        first, last = log.span
        host_fits = log.host is None or not self.hosts or log.host in self.hosts
        return self.start_us <= first and last <= self.end_us and host_fits

    def has_in_folder(self, log_path: Path) -> bool:
        if self.folder is None:
            return False
        return log_path.is_relative_to(self.folder) if self.below else log_path.parent == self.folder


def window_of(run: Run, source_path: str | None = None, kind: str = "") -> Window | None:
    """A run's window; with source_path (the real path of the source it came from), its folder."""
    if not run.events:
        return None
    starts = [event.ts_us for event in run.events if event.event == "run_start"]
    ends = [event.ts_us for event in run.events if event.event == "run_end"]
    start = min(starts or [event.ts_us for event in run.events])
    end = max(ends) if ends else max(event.ts_us for event in run.events)
    hosts = {event.fields.get("host") for event in run.events if event.event == "sample"}
    hosts.add(run.run_fields.get("host"))
    folder, below = None, False
    if source_path is not None:
        path = Path(source_path)
        is_folder = path.is_dir()
        folder = path if is_folder else path.parent
        below = is_folder or kind in FILE_NAMES_RUN_FOLDER
    named = frozenset(host for host in hosts if isinstance(host, str) and host)
    return Window(run.run_id, start, end, named, folder, below)


@dataclass
class Placed:
    """A log given a run, and why (the note's words)."""

    log: SampleLog
    run_id: str
    why: str


@dataclass
class Decisions:
    placed: list[Placed] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _span_words(log: SampleLog) -> str:
    first, last = log.span
    host = f" on host {log.host}" if log.host else ""
    return f"its samples ({format_ts(first)} to {format_ts(last)}{host})"


def _ids(windows: list[Window]) -> str:
    return ", ".join(sorted({window.run_id for window in windows}))


def decide(logs: list[SampleLog], windows: list[Window], samples_run: str | None) -> Decisions:
    """Each log's run, by the rule above; a log without one, or with several, is a reject and a note."""
    decisions = Decisions()
    if samples_run is not None and logs and samples_run not in {window.run_id for window in windows}:
        known = _ids(windows) or "none"
        raise SamplesRunError(
            f"--samples-run {samples_run}: no run of that id was imported or is in --into (runs: {known}); "
            "give one of them"
        )
    for log in logs:
        real = Path(os.path.realpath(log.path))
        if samples_run is not None:
            decisions.placed.append(Placed(log, samples_run, "--samples-run"))
            continue
        in_folder = [window for window in windows if window.has_in_folder(real)]
        if in_folder:
            nearest = max(len(window.folder.parts) for window in in_folder)
            in_folder = [window for window in in_folder if len(window.folder.parts) == nearest]
        if len({window.run_id for window in in_folder}) == 1:
            decisions.placed.append(
                Placed(log, in_folder[0].run_id, f"it lies in the folder of run {in_folder[0].run_id}")
            )
            continue
        candidates = in_folder or windows
        holding = {window.run_id: window for window in candidates if window.holds(log)}
        if len(holding) == 1:
            (run_id,) = holding
            where = "in its folder and " if in_folder else ""
            decisions.placed.append(Placed(log, run_id, f"{where}its time window holds {_span_words(log)}"))
            continue
        among = f" among the runs of its folder ({_ids(in_folder)})" if in_folder else ""
        if holding:
            reason = "samples_of_several_runs"
            detail = f"the time windows of runs {_ids(list(holding.values()))}{among} all hold {_span_words(log)}"
        else:
            reason = "samples_without_run"
            detail = f"no imported run's time window{among} holds {_span_words(log)}"
            overlapping = [window for window in candidates if _overlaps(window, log)]
            if overlapping:
                detail += f" (runs {_ids(overlapping)} overlap it in part)"
        detail += f"; not written: --samples-run RUN_ID names their run ({len(log.samples)} samples)"
        decisions.rejects.append(Reject(log.source_format, log.shown, reason, detail))
        decisions.notes.append(f"{log.shown}: {detail}")
    return decisions


def _overlaps(window: Window, log: SampleLog) -> bool:
    first, last = log.span
    return window.start_us <= last and first <= window.end_us


def samples_file(out: Path, placed: Placed) -> Path:
    """`<out>/<format>/<run id>/<log file name>-<8 hex of its real path>.jsonl`: one file per log, so
    two logs of one run (two hosts) never meet, and importing the log again replaces it."""
    owner = Run(placed.run_id, placed.log.source_format, "", "")
    folder = run_file(out, owner).with_suffix("")
    digest = hashlib.sha1(os.path.realpath(placed.log.path).encode()).hexdigest()[:8]
    return folder / f"{safe_component(placed.log.path.name)}-{digest}.jsonl"


def samples_run(placed: Placed) -> Run:
    """The samples as lines of their run (no run_start: the run's own file has it)."""
    return Run(placed.run_id, placed.log.source_format, "", "", events=list(placed.log.samples))


def placed_note(placed: Placed) -> str:
    gpus = len({(event.fields.get("host"), event.fields["gpu"]) for event in placed.log.samples})
    count = plural(len(placed.log.samples), "utilization sample")
    return f"{placed.log.shown}: {count} of {plural(gpus, 'GPU')} belong to run {placed.run_id}: {placed.why}"
