"""The files of W&B run folders, without W&B itself: which files are runs, and what an online run left.

Every `wandb.init()` makes a run folder below the project's `wandb/` folder (or `$WANDB_DIR/wandb/`):
`run-<YYYYMMDD_HHMMSS>-<id>/` for an online run, `offline-run-<...>-<id>/` for an offline one, with
the run's record stream `run-<id>.wandb` in it (read by wandb_framing.py and wandb_runs.py). A run
resumed with the same id (`resume=`) gets one folder per session: the sessions of one run are the
`run-<id>.wandb` files with the same id. Beside the stream, an online run leaves `files/`:
`config.yaml`, `wandb-metadata.json` (start time, host, GPUs) and `wandb-summary.json`; wandb 0.31
keeps all of it in the stream too, so these are read only where the stream lacks them (older
versions wrote the metadata to the file alone).

W&B's importer (IMPORTER) claims one source per run id, and takes its run folders from the
importers after it: the TensorBoard and text files in a run folder (`sync_tensorboard=True`, W&B's
own debug logs) are that run's, whose times come from the record stream.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import yaml

from .common import Options, Outcome
from .importer import Claim, Claimed, Claims, Importer, Source, Walk

RUN_FILE = re.compile(r"^run-(?P<id>[A-Za-z0-9_-]+)\.wandb$")
RUN_FOLDER = re.compile(r"^(?:offline-)?run-\d{8}_\d{6}-(?P<id>[A-Za-z0-9_-]+)$")
COVERED = (
    "{taken}: among the files of W&B run folder {owner}: that run covers it (its times come from W&B's "
    "record stream); --format tensorboard or text imports it alone"
)


def is_run_file(path: Path) -> bool:
    return bool(RUN_FILE.match(path.name)) and path.is_file()


def run_id_of(path: Path) -> str:
    """The W&B run id that a `run-<id>.wandb` file's name carries."""
    match = RUN_FILE.match(path.name)
    return match.group("id") if match else path.stem


def run_folder(run_file: Path) -> Path:
    """The run folder of a run file: its parent (whatever the folder is called)."""
    return run_file.parent


def is_canonical(run_file: Path) -> bool:
    """Whether the file lies in a folder named as W&B names run folders (a copy such as
    `wandb/latest-run/`, the symlink copied as a folder, is not)."""
    match = RUN_FOLDER.match(run_file.parent.name)
    return bool(match) and match.group("id") == run_id_of(run_file)


def sessions_by_run(files: list[Path]) -> dict[str, list[Path]]:
    """The run files grouped by run id (one file per session), each group in path order."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(files):
        groups.setdefault(run_id_of(path), []).append(path)
    return groups


def project_folder(run_file: Path) -> Path:
    """The folder the training ran in: the one that holds `wandb/<run folder>/`."""
    return run_file.parent.parent.parent


# ---------------------------------------------------------------------------------------------
# what an online run leaves in files/


def _read_json(path: Path) -> dict:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def metadata(folder: Path) -> dict:
    """`files/wandb-metadata.json`: startedAt, host, gpu (its type), gpu_count, ...; {} when absent."""
    return _read_json(folder / "files" / "wandb-metadata.json")


def config(folder: Path) -> dict:
    """`files/config.yaml` without W&B's own `_wandb` key; each value as `{value: ...}` or bare."""
    try:
        loaded = yaml.safe_load((folder / "files" / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    out = {}
    for key, value in loaded.items():
        if str(key).startswith("_wandb") or key == "wandb_version":
            continue
        out[str(key)] = value["value"] if isinstance(value, dict) and "value" in value else value
    return out


def parse_time(text: object) -> float | None:
    """An ISO time from metadata (`2024-05-01T10:00:00.123456`, UTC with or without `Z`) as Unix seconds."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# ---------------------------------------------------------------------------------------------
# where a run's checkpoint files may lie (outside wandb/)


def checkpoint_folders(run_file: Path, project: str, run_config: dict, root: str) -> tuple[list[Path], list[bool]]:
    """The folders that may hold this run's checkpoints, each searched deep or not, below the
    project folder that holds `wandb/` and, when it is another folder that exists here, below the
    folder the training ran in (`root`, from W&B's environment record; `WANDB_DIR` elsewhere):

    - PyTorch Lightning's ModelCheckpoint beside WandbLogger: `<save_dir>/<project>/<id>/checkpoints/`,
      save_dir being the training's folder by default;
    - the Hugging Face Trainer's `output_dir` (its `checkpoint-S/` folders), from the run's config,
      taken as relative to the training's folder when it lay under it;
    - the run folder's `files/`, where `wandb.save` copies files.
    """
    bases = [project_folder(run_file)]
    if root and Path(root).is_dir() and Path(root) != bases[0]:
        bases.append(Path(root))
    folders, deep = [run_folder(run_file) / "files"], [True]
    output_dir = run_config.get("output_dir")
    for base in bases:
        folders.append(base / project / run_id_of(run_file))
        deep.append(True)
        if isinstance(output_dir, str) and output_dir:
            path = Path(output_dir)
            if not path.is_absolute():
                path = base / path
            elif root and path.is_relative_to(root):
                path = base / path.relative_to(root)
            folders.append(path)
            deep.append(False)
    return folders, deep


# ---------------------------------------------------------------------------------------------
# the importer


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per run id (its sessions' run files); each run folder takes the TensorBoard and
    text files in it."""
    run_files = [path for path in walk.files if is_run_file(path)]
    sources = [Source(IMPORTER, files[0], walk.base, files) for files in sessions_by_run(run_files).values()]
    folders = dict.fromkeys(run_folder(path) for path in run_files)
    taken = [Claim(folder, frozenset({"tensorboard", "text"}), COVERED) for folder in folders]
    return Claims(sources, taken)


def read(source: Source, options: Options) -> Outcome:
    from . import wandb_runs  # W&B's protobuf: the importer extra

    return wandb_runs.import_run(source.files, options)


IMPORTER = Importer("wandb", "wandb", "W&B", "wandb", claim, read)
