"""Where the import copies each profiler trace in the imported logs' folder (RAW_DIR), so that the
build gives it the run the import gives it.

The build's rule (input_contract.md, "Profiler traces"): a trace in a folder that holds a runlens
log, or in a folder below one, belongs to the run of such a log whose time window holds the
trace's start (of several, the deepest folder's, then the latest to start); any other trace is a
run of its own, its collection its folder. The import gives a trace the run whose folder holds it
(the nearest run folder of this import above it: a TensorBoard log dir, a W&B or MLflow run, a
Lightning version folder; unlike a report without timestamps, a trace beside a run's folder is not
given to it, as its own times may place it elsewhere) and copies it below that run's log, keeping
its path below the run's folder:
`<the log's folder>/<the log's name less .jsonl>.traces/<path>`. A trace no run takes is copied to
`RAW_DIR/traces/<the PATH's name>/<its path below the PATH>`: a run of its own in the build. A trace
copied beside a run whose time window does not hold its start is a run of its own in the build
too (fct_traces says which run each trace went to).

A copy keeps the trace's modification time, so importing again leaves an unchanged trace as the
build read it (its fingerprint is its size and time).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .common import display_path, run_file
from .report_attribution import run_folders


@dataclass
class Placed:
    notes: list[str] = field(default_factory=list)
    copies: list[tuple[Path, Path, str | None]] = field(default_factory=list)  # (trace, copy, run id)


def _below(path: Path, folder: Path) -> Path:
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(folder))
    return real.relative_to(base) if real.is_relative_to(base) and real != base else Path(real.name)


def destination(trace: Path, root: Path, out: Path, folders: dict) -> tuple[Path, str | None, str]:
    """(where the trace goes, its run id or None, why)."""
    real = Path(os.path.realpath(trace))
    holding = [folder for folder in folders if real.is_relative_to(folder)]
    if holding:
        nearest = max(holding, key=lambda folder: len(folder.parts))
        if len(folders[nearest]) == 1:
            run = folders[nearest][0]
            log = run_file(out, run)
            below = _below(trace, nearest)
            return log.with_name(log.name.removesuffix(".jsonl") + ".traces") / below, run.run_id, ""
        why = f"the run folder that holds it ({nearest}) holds {len(folders[nearest])} runs"
    else:
        why = "no run of this import lies in a folder that holds it"
    return out / "traces" / (Path(os.path.realpath(root)).name or "trace") / _below(trace, root), None, why


def copy(trace: Path, target: Path) -> None:
    """The trace at target, with its modification time (not copied again when target is the same)."""
    source = trace.stat()
    if target.is_file():
        present = target.stat()
        if present.st_size == source.st_size and present.st_mtime_ns == source.st_mtime_ns:
            return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copy2(trace, partial)
    os.replace(partial, target)


def place(traces: list[tuple[Path, Path]], runs_of: dict, out: Path) -> Placed:
    """Copy each (trace, PATH folder) into out by the rule above."""
    placed = Placed()
    folders = run_folders(runs_of)
    for trace, root in traces:
        target, run_id, why = destination(trace, root, out, folders)
        copy(trace, target)
        placed.copies.append((trace, target, run_id))
        if run_id is None:
            placed.notes.append(
                f"{display_path(trace)}: {why}: copied to {display_path(target)}, a run of its own in the build"
            )
    return placed
