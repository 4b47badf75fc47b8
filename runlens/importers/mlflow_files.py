"""The MLflow file store (`mlruns/`), read as plain files: no MLflow needed.

Layout: `<store>/<experiment id>/meta.yaml` names the experiment; each run is a folder beside it,
`<run id>/meta.yaml` (start_time, end_time, status as a number or a name), `metrics/<key>` (one
line per point: `timestamp value step`, times in Unix milliseconds), `params/<key>` and
`tags/<key>` (the value is the file's text; a key with `/` is a sub-folder), `artifacts/`.

Its importer (IMPORTER) claims one source per run folder, and takes from the importers after it
the TensorBoard logs among a run's artifacts (what an autologged training wrote there): the run
covers them, with MLflow's times.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from . import mlflow_runs, scalars
from .common import Options, Outcome, Reject, display_path, us_from_millis
from .importer import Claim, Claimed, Claims, Importer, Source, Walk
from .mlflow_runs import FORMAT, MlflowRun, normalise_status

RUN_PARTS = ("metrics", "params", "tags", "artifacts")
RUN_NAME = re.compile(r"^[0-9a-f]{32}$")
COVERED = (
    "{taken}: TensorBoard logs among the artifacts of MLflow run {owner}: that run covers them (its times "
    "come from MLflow); --format tensorboard imports them alone"
)


def looks_like_run(folder: Path) -> bool:
    """A run folder, whether or not its meta.yaml is there."""
    if folder.name.startswith("."):
        return False
    parts = sum((folder / part).is_dir() for part in RUN_PARTS)
    return parts >= 2 or (parts >= 1 and RUN_NAME.match(folder.name) is not None) or _has_run_meta(folder)


def _has_run_meta(folder: Path) -> bool:
    meta = folder / "meta.yaml"
    if not meta.is_file():
        return False
    try:
        text = meta.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "run_uuid:" in text or "run_id:" in text


def _load_yaml(path: Path) -> tuple[dict | None, str | None]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return None, f"cannot read: {error}"
    except yaml.YAMLError as error:
        return None, f"not valid YAML: {str(error).splitlines()[0]}"
    if not isinstance(loaded, dict):
        return None, "not a YAML mapping"
    return loaded, None


def _read_values(folder: Path, rejects: list[Reject]) -> dict[str, str]:
    values: dict[str, str] = {}
    if not folder.is_dir():
        return values
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            values[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            rejects.append(Reject(FORMAT, display_path(path), "unreadable_file", str(error)))
    return values


def _read_metrics(folder: Path, rejects: list[Reject]) -> scalars.Series:
    series: scalars.Series = {}
    if not folder.is_dir():
        return series
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        key = path.relative_to(folder).as_posix()
        shown = display_path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            rejects.append(Reject(FORMAT, shown, "unreadable_file", str(error)))
            continue
        points = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            parts = line.split()
            try:
                if len(parts) not in (2, 3):
                    raise ValueError(f"{len(parts)} fields")
                ts_ms = int(parts[0])
                value = float(parts[1])
                step = int(parts[2]) if len(parts) == 3 else 0
            except ValueError as error:
                rejects.append(
                    Reject(
                        FORMAT,
                        shown,
                        "corrupt_record",
                        f"line {number}: {line[:120]!r} is not 'timestamp value step' ({error}); line skipped",
                    )
                )
                continue
            points.append(scalars.Point(us_from_millis(ts_ms), step, value, shown))
        if points:
            series[key] = points
    return series


def read_run(folder: Path, experiment_name: str | None, experiment_id: str) -> tuple[MlflowRun | None, list[Reject]]:
    """One run folder; None (with the reason among the rejects) when it cannot be a run."""
    rejects: list[Reject] = []
    meta_path = folder / "meta.yaml"
    shown = display_path(meta_path)
    if not meta_path.is_file():
        parts = ", ".join(p for p in RUN_PARTS if (folder / p).is_dir())
        rejects.append(
            Reject(FORMAT, display_path(folder), "missing_meta_yaml", f"run folder without meta.yaml (has {parts})")
        )
        return None, rejects
    meta, problem = _load_yaml(meta_path)
    if meta is None:
        rejects.append(Reject(FORMAT, shown, "bad_meta_yaml", problem))
        return None, rejects
    run_uuid = str(meta.get("run_uuid") or meta.get("run_id") or "")
    if not run_uuid:
        rejects.append(Reject(FORMAT, shown, "bad_meta_yaml", "no run_uuid or run_id"))
        return None, rejects
    tags = {k: v.strip() for k, v in _read_values(folder / "tags", rejects).items()}
    params = {k: v.strip() for k, v in _read_values(folder / "params", rejects).items()}
    name = str(meta.get("run_name") or meta.get("name") or tags.get("mlflow.runName") or "")
    run = MlflowRun(
        run_uuid=run_uuid,
        name=name,
        experiment_id=str(meta.get("experiment_id", experiment_id)),
        experiment_name=experiment_name,
        status=normalise_status(meta.get("status")),
        start_ms=_millis(meta.get("start_time")),
        end_ms=_millis(meta.get("end_time")),
        source_path=shown,
        params=params,
        tags=tags,
        metrics=_read_metrics(folder / "metrics", rejects),
        artifact_dir=folder / "artifacts" if (folder / "artifacts").is_dir() else None,
    )
    if meta.get("lifecycle_stage") == "deleted":
        run.status = "DELETED"
    return run, rejects


def _millis(value) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def experiment_of(run_folder: Path) -> tuple[str | None, str, bool, Reject | None]:
    """(name, id, deleted, reject) of the experiment folder that holds a run folder."""
    folder = run_folder.parent
    meta_path = folder / "meta.yaml"
    if not meta_path.is_file():
        reject = Reject(FORMAT, display_path(folder), "missing_meta_yaml", "experiment folder without meta.yaml")
        return None, folder.name, False, reject
    meta, problem = _load_yaml(meta_path)
    if meta is None or "experiment_id" not in meta:
        reject = Reject(FORMAT, display_path(meta_path), "bad_meta_yaml", problem or "no experiment_id")
        return None, folder.name, False, reject
    deleted = meta.get("lifecycle_stage") == "deleted"
    return str(meta.get("name") or ""), str(meta["experiment_id"]), deleted, None


def find_run_folders(root: Path) -> list[Path]:
    """Run folders of every file store below root (the `.trash` of a store is skipped)."""
    found = []
    for current, dirs, _files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(current)
        if here != root and looks_like_run(here) and ((here.parent / "meta.yaml").is_file() or _sibling_runs(here)):
            found.append(here)
            dirs[:] = []  # nothing below a run folder is another run
    return found


def _sibling_runs(folder: Path) -> bool:
    """A run-looking folder in an experiment folder that lost its meta.yaml: its name is an id."""
    return RUN_NAME.match(folder.name) is not None


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per run folder below a folder PATH; each takes the TensorBoard runs below it."""
    if not walk.path.is_dir():
        return Claims()
    folders = find_run_folders(walk.path)
    sources = [Source(IMPORTER, folder, walk.base, [folder / "meta.yaml"]) for folder in folders]
    taken = [Claim(folder, frozenset({"tensorboard"}), COVERED, of="runs") for folder in folders]
    return Claims(sources, taken)


def read(source: Source, options: Options) -> Outcome:
    """The run of one run folder, with its experiment's reject (a deleted experiment's run is deleted)."""
    name, experiment_id, deleted, reject = experiment_of(source.path)
    mlrun, rejects = read_run(source.path, name, experiment_id)
    if mlrun is not None and deleted:
        mlrun.status = "DELETED"
    before = [reject] if reject is not None else []
    return mlflow_runs.import_runs([mlrun] if mlrun is not None else [], before + rejects, options)


IMPORTER = Importer(FORMAT, "mlflow_file", "MLflow", None, claim, read)
