"""Find the sources below the given paths, import each, write the runs and the rejects."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path

from runlens.usage import importer_extra

from . import mlflow_files, mlflow_runs, mlflow_sqlite, text_log, wandb_files
from .common import Options, Outcome, Reject, display_path, run_file, write_rejects, write_run
from .earlier_imports import replace_earlier, source_key
from .inputs import nothing_to_import
from .progress import Progress, summary

FORMATS = ("auto", "tensorboard", "mlflow", "text", "wandb")
# the formats that need a package of the importer extra: format -> (package, name in messages)
OPTIONAL = {"tensorboard": ("tensorboard", "TensorBoard"), "wandb": ("wandb", "W&B")}
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


@dataclass
class Source:
    """One unit of work: a TensorBoard run folder, an MLflow run folder, a database, a text log,
    the run files (sessions) of one W&B run."""

    kind: str  # tensorboard | mlflow_file | mlflow_sqlite | text | wandb
    path: Path
    root: Path
    files: list[Path] = field(default_factory=list)

    @property
    def file_count(self) -> int:
        return max(1, len(self.files))


@dataclass
class Plan:
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


def _in_wandb_run(path: Path, run_dirs: set[Path], fmt: str, plan: Plan) -> bool:
    """Whether --format auto leaves this file to the W&B run folder it lies in (with a note)."""
    owner = next((d for d in path.parents if d in run_dirs), None)
    if owner is None or fmt != "auto":
        return False
    plan.notes.append(
        f"{display_path(path)}: among the files of W&B run folder {owner.name}: that run covers it "
        "(its times come from W&B's record stream); --format tensorboard or text imports it alone"
    )
    return True


def discover(paths: list[Path], fmt: str, options: Options, without: frozenset[str] = frozenset()) -> Plan:
    """Every source below the paths that the format takes, in a stable order; `without`: formats
    --format auto leaves out (their package is not installed)."""
    plan = Plan()
    want = {fmt} if fmt != "auto" else {"tensorboard", "mlflow", "text", "wandb"} - without
    for root in paths:
        found_before = len(plan.sources)
        files = _walk_files(root)
        base = root if root.is_dir() else root.parent
        wandb_dirs: set[Path] = set()
        if "wandb" in want or fmt == "auto":
            run_files = [path for path in files if wandb_files.is_run_file(path)]
            wandb_dirs = {wandb_files.run_folder(path) for path in run_files}
        if "wandb" in want:
            for run_files_of_id in wandb_files.sessions_by_run(run_files).values():
                plan.sources.append(Source("wandb", run_files_of_id[0], base, run_files_of_id))
        mlflow_run_dirs: list[Path] = []
        if "mlflow" in want and root.is_dir():
            mlflow_run_dirs = mlflow_files.find_run_folders(root)
            plan.sources += [Source("mlflow_file", d, base, [d / "meta.yaml"]) for d in mlflow_run_dirs]
        if "mlflow" in want:
            for path in files:
                explicit = path == root and fmt == "mlflow"
                if path.suffix in SQLITE_SUFFIXES and (explicit or mlflow_sqlite.is_mlflow_store(path)):
                    plan.sources.append(Source("mlflow_sqlite", path, base, [path]))
        if "tensorboard" in want:
            from .tensorboard import is_event_file, run_folder  # tensorboard is an optional extra

            groups: dict[Path, list[Path]] = {}
            for path in files:
                if is_event_file(path) and not _in_wandb_run(path, wandb_dirs, fmt, plan):
                    groups.setdefault(run_folder(path), []).append(path)
            for folder, event_files in sorted(groups.items()):
                owner = next((d for d in mlflow_run_dirs if d in folder.parents), None)
                if owner is not None and fmt == "auto":
                    plan.notes.append(
                        f"{display_path(folder)}: TensorBoard logs among the artifacts of MLflow run "
                        f"{owner.name}: that run covers them (its times come from MLflow); "
                        "--format tensorboard imports them alone"
                    )
                    continue
                plan.sources.append(Source("tensorboard", folder, base, event_files))
        if "text" in want:
            for path in files:
                if fmt == "text" and root.is_file() or text_log.looks_like_log(path, options):
                    if not _in_wandb_run(path, wandb_dirs, fmt, plan):
                        plan.sources.append(Source("text", path, base, [path]))
        states = [p for p in files if p.name.endswith("trainer_state.json")]
        if fmt == "auto" and states and len(plan.sources) == found_before:
            plan.notes.append(
                f"{display_path(states[0])}: a Hugging Face trainer_state.json holds steps but no wall-clock times, "
                "so it cannot be profiled; import that run's TensorBoard or MLflow logs instead"
            )
    return plan


def _import(source: Source, options: Options) -> Outcome:
    if source.kind == "tensorboard":
        from . import tensorboard

        return tensorboard.import_run(source.path, source.files, source.root, options)
    if source.kind == "text":
        return text_log.import_log(source.path, source.root, options)
    if source.kind == "wandb":
        from . import wandb_runs  # wandb is an optional extra

        return wandb_runs.import_run(source.files, options)
    outcome = Outcome()
    if source.kind == "mlflow_file":
        name, experiment_id, deleted, reject = mlflow_files.experiment_of(source.path)
        if reject is not None:
            outcome.rejects.append(reject)
        mlrun, rejects = mlflow_files.read_run(source.path, name, experiment_id)
        outcome.rejects.extend(rejects)
        if mlrun is not None and deleted:
            mlrun.status = "DELETED"
        mlruns = [mlrun] if mlrun is not None else []
    else:
        mlruns, rejects = mlflow_sqlite.read_store(source.path)
        outcome.rejects.extend(rejects)
    for mlrun in mlruns:
        if mlrun.status == "DELETED":
            outcome.notes.append(f"MLflow run {mlrun.run_uuid} ({mlrun.source_path}) is deleted: not imported")
            continue
        outcome.extend(mlflow_runs.to_run(mlrun, options, mlflow_runs.run_id_for(mlrun)))
    return outcome


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
    for note in plan.notes:
        progress.note(note)
    for source in plan.sources:
        try:
            outcome = _import(source, options)
        except Exception as error:  # a reader bug must not lose the other sources: name it
            outcome = Outcome(
                rejects=[
                    Reject(_format_of(source), display_path(source.path), "import_error", f"import failed: {error!r}")
                ]
            )
        for note in outcome.notes:
            progress.note(note)
        total.extend(outcome)
        runs_of.setdefault(source_key(source.path), []).extend(outcome.runs)
        progress.advance(source.file_count, len(outcome.runs))
    total.rejects = list(dict.fromkeys(total.rejects))  # an experiment's reject comes with each run
    _unique_ids(total)
    out.mkdir(parents=True, exist_ok=True)
    for run in total.runs:
        write_run(out, run)
    replace_earlier(out, {key: [run_file(out, run) for run in runs] for key, runs in runs_of.items()})
    rejects_path = write_rejects(out, total.rejects, paths)
    line = summary(
        total.runs,
        total.rejects,
        plan.file_count,
        display_path(out),
        display_path(rejects_path) if rejects_path else None,
        len(total.notes),
        progress.quiet,
    )
    return total, line


def _format_of(source: Source) -> str:
    return {"mlflow_file": "mlflow", "mlflow_sqlite": "mlflow"}.get(source.kind, source.kind)
