"""TensorBoard's importer: which files are event files and which folder is one run, without
TensorBoard itself (tensorboard.py, which reads them, needs the importer extra).

It claims one source per run folder of event files, leaving to an earlier importer the files and
run folders it took (a W&B run folder's files, an MLflow run's artifacts).
"""

from __future__ import annotations

import re
from pathlib import Path

from .common import Options, Outcome
from .importer import Claimed, Claims, Importer, Source, Walk

EVENT_FILE = re.compile(r"(^|\.)events\.out\.tfevents\.")
KERAS_SPLITS = ("train", "validation")


def is_event_file(path: Path) -> bool:
    return bool(EVENT_FILE.search(path.name)) and path.is_file()


def run_folder(event_file: Path) -> Path:
    """The folder that is one run: the file's folder, or its parent for Keras' train/validation."""
    folder = event_file.parent
    if folder.name in KERAS_SPLITS:
        return folder.parent
    return folder


def claim(walk: Walk, claimed: Claimed, options: Options, explicit: bool) -> Claims:
    """One source per run folder of event files, but for those an earlier importer took."""
    claims = Claims()
    groups: dict[Path, list[Path]] = {}
    for path in walk.files:
        if not is_event_file(path):
            continue
        owner = claimed.owner(path, IMPORTER.name)
        if owner is not None:
            claims.notes.append(owner.said_of(path))
            continue
        groups.setdefault(run_folder(path), []).append(path)
    for folder, event_files in sorted(groups.items()):
        owner = claimed.owner(folder, IMPORTER.name, of="runs")
        if owner is not None:
            claims.notes.append(owner.said_of(folder))
            continue
        claims.sources.append(Source(IMPORTER, folder, walk.base, event_files))
    return claims


def read(source: Source, options: Options) -> Outcome:
    from . import tensorboard  # the importer extra

    return tensorboard.import_run(source.path, source.files, source.root, options)


IMPORTER = Importer("tensorboard", "tensorboard", "TensorBoard", "tensorboard", claim, read)
