"""Find the sources below the given paths, import each, write the runs and the rejects."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path

from runlens.usage import importer_extra

from .common import Options, Outcome, Reject, display_path, dump_line, run_file, write_atomic, write_rejects, write_run
from .earlier_imports import replace_earlier, source_key
from .importer import Claimed, Importer, Source, Walk
from .inputs import nothing_to_import
from .known_runs import windows_in
from .progress import Progress, summary
from .registry import IMPORTERS, OPTIONAL
from .report_attribution import attach
from .sample_attribution import Decisions, decide, placed_note, samples_file, samples_run, window_of
from .trace_placement import place as place_traces


@dataclass
class ImportPlan:
    """What `runlens import` will read: the sources the importers claimed, and their notes."""

    sources: list[Source] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def file_count(self) -> int:
        return sum(s.file_count for s in self.sources)


def _walk_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".trash")
        found.extend(Path(current) / name for name in sorted(files))
    return found


def _available(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def discover(
    paths: list[Path],
    fmt: str,
    options: Options,
    without: frozenset[str] = frozenset(),
    importers: tuple[Importer, ...] = IMPORTERS,
) -> ImportPlan:
    """Every source below the paths that the format takes, in a stable order: per PATH, each
    importer of the format (--format auto: every one, in the list's order) claims its sources,
    given what the earlier ones claimed. `without`: formats --format auto leaves out (their package
    is not installed): they still claim their folders, so no other format reads their files, but
    add no source and no note."""
    plan = ImportPlan()
    chosen = [importer for importer in importers if fmt in ("auto", importer.name)]
    for root in paths:
        walk = Walk(root, root if root.is_dir() else root.parent, _walk_files(root))
        claimed = Claimed()
        for importer in chosen:
            claims = importer.claim(walk, claimed, options, fmt == importer.name)
            claimed.add(claims.taken)
            if importer.name not in without:
                plan.sources += claims.sources
                plan.notes += claims.notes
    return plan


def _unique_ids(outcome: Outcome) -> None:
    """Two sources that would give the same run_id: the later ones get `~2`, `~3`, ..."""
    seen: dict[str, int] = {}
    for run in outcome.runs:
        count = seen.get(run.run_id, 0) + 1
        seen[run.run_id] = count
        if count > 1:
            run.run_id = f"{run.run_id}~{count}"


def run_import(
    paths: list[Path], out: Path, fmt: str = "auto", options: Options | None = None, progress: Progress | None = None
) -> tuple[Outcome, str]:
    """Import every source below paths into out; returns what was imported and the summary line.
    Raises NothingToImport (writing nothing) when the paths hold no source."""
    options = options or Options()
    wanted = [name for name in OPTIONAL if fmt in ("auto", name)]
    missing = frozenset(name for name in wanted if not _available(OPTIONAL[name][0]))
    if fmt in missing:
        label = OPTIONAL[fmt][1]
        raise RuntimeError(f"reading {label} logs needs the importer extra: {importer_extra()}")
    plan = discover(paths, fmt, options, without=missing)
    for name in sorted(missing):
        package, label = OPTIONAL[name]
        plan.notes.append(f"{package} is not installed: {label} logs skipped ({importer_extra()})")
    if not plan.sources:
        raise nothing_to_import(paths, fmt, plan.notes)
    progress = progress or Progress(plan.file_count)
    progress.total = plan.file_count
    total = Outcome(notes=list(plan.notes))
    runs_of: dict[str, list] = {}  # per source, its runs (earlier_imports.py)
    kind_of: dict[str, str] = {}  # per source, its importer's kind
    for note in plan.notes:
        progress.note(note)
    for source in plan.sources:
        try:
            outcome = source.importer.read(source, options)
        except Exception as error:  # a reader bug must not lose the other sources: name it
            outcome = Outcome(
                rejects=[
                    Reject(source.importer.name, display_path(source.path), "import_error", f"import failed: {error!r}")
                ]
            )
        for note in outcome.notes:
            progress.note(note)
        total.extend(outcome)
        runs_of.setdefault(source_key(source.path), []).extend(outcome.runs)
        kind_of[source_key(source.path)] = source.kind
        progress.advance(source.file_count, len(outcome.runs))
    total.rejects = list(dict.fromkeys(total.rejects))  # an experiment's reject comes with each run
    _unique_ids(total)
    decisions = _attribute_samples(total, runs_of, kind_of, out, options)
    for note in decisions.notes:
        progress.note(note)
    attached = attach(total.reports, runs_of)  # profiler reports: the profile of their run's folder
    total.rejects += attached.rejects
    total.notes += attached.notes
    for note in attached.notes:
        progress.note(note)
    out.mkdir(parents=True, exist_ok=True)
    carried = place_traces(total.traces, runs_of, out)  # profiler traces: copied beside their run
    total.notes += carried.notes
    for note in carried.notes:
        progress.note(note)
    written = {key: [run_file(out, run) for run in runs] for key, runs in runs_of.items()}
    for trace, target, _ in carried.copies:
        written.setdefault(source_key(trace), []).append(target)
    for run in total.runs:
        write_run(out, run)
    for placed in decisions.placed:
        path = samples_file(out, placed)
        write_atomic(path, "".join(dump_line(line) + "\n" for line in samples_run(placed).lines()))
        written.setdefault(source_key(placed.log.path), []).append(path)
    replace_earlier(out, written)
    rejects_path = write_rejects(out, total.rejects, paths)
    line = summary(
        total.runs,
        total.rejects,
        plan.file_count,
        display_path(out),
        display_path(rejects_path) if rejects_path else None,
        len(total.notes),
        progress.quiet,
        sum(len(placed.log.samples) for placed in decisions.placed),
        traces=len(carried.copies),
    )
    return total, line


def _attribute_samples(
    total: Outcome, runs_of: dict[str, list], kind_of: dict[str, str], out: Path, options: Options
) -> Decisions:
    """Give each cluster GPU log's samples their run (sample_attribution.py), among the runs of this
    import and those already in out; its reject and note join the import's. Raises SamplesRunError
    (before anything is written) when --samples-run names no such run."""
    if not total.sample_logs:
        return Decisions()
    windows = [
        window
        for key, runs in runs_of.items()
        for run in runs
        if (window := window_of(run, key, kind_of[key])) is not None
    ]
    imported = {window.run_id for window in windows}
    windows += [window for window in windows_in(out, set(runs_of)) if window.run_id not in imported]
    decisions = decide(total.sample_logs, windows, options.samples_run)
    total.rejects += decisions.rejects
    total.notes += [placed_note(placed) for placed in decisions.placed] + decisions.notes
    decisions.notes = [placed_note(placed) for placed in decisions.placed] + decisions.notes
    return decisions
