"""Checkpoint files beside the logs: which names carry a step, and when each was written.

Recognised names (the step is what the marker needs):

- PyTorch Lightning `ModelCheckpoint`: `epoch=E-step=S.ckpt` (also with `-v1`, metric parts, or
  a custom prefix: any `.ckpt` name with a `step=S` part);
- Hugging Face Trainer: a folder `checkpoint-S/`;
- plain loops and Accelerate: `step_S.pt`, `step-S.pt`, `checkpoint_S.pt` (also `.pth`, `.bin`,
  `.safetensors`, or a folder of that name).

A file is timed by its modification time (the moment its last byte was written); a folder by the
latest modification time of the folder and anything in it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .common import Reject, display_path

GRACE_US = 600 * 1_000_000  # a checkpoint this long after the run's last event still counts
_LIGHTNING = re.compile(r"(?:^|[-_])step=(\d+)(?:[-_.].*)?\.ckpt$")
_LIGHTNING_EPOCH = re.compile(r"(?:^|[-_])epoch=(\d+)")
_HF_DIR = re.compile(r"^checkpoint-(\d+)$")
_PLAIN = re.compile(r"^(?:step|checkpoint|ckpt)[-_](\d+)(?:\.(?:pt|pth|bin|ckpt|safetensors))?$")


@dataclass(frozen=True)
class CheckpointFile:
    path: Path
    step: int
    mtime_us: int
    epoch: int | None = None  # from a Lightning name: the 0-based epoch the step fell in


def checkpoint_step(name: str, is_dir: bool) -> tuple[int, int | None] | None:
    """(step, epoch or None) when the name is a checkpoint name, else None."""
    if is_dir:
        match = _HF_DIR.match(name) or _PLAIN.match(name)
        return (int(match.group(1)), None) if match else None
    match = _LIGHTNING.search(name)
    if match:
        epoch = _LIGHTNING_EPOCH.search(name)
        return int(match.group(1)), int(epoch.group(1)) if epoch else None
    match = _PLAIN.match(name)
    if match and "." in name:
        return int(match.group(1)), None
    return None


def _latest_mtime_ns(path: Path) -> int:
    latest = path.stat().st_mtime_ns
    if path.is_dir():
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                try:
                    latest = max(latest, os.stat(os.path.join(root, name)).st_mtime_ns)
                except OSError:
                    continue
    return latest


def find_checkpoints(folders: list[Path], recursive: list[bool]) -> list[CheckpointFile]:
    """Checkpoint files and folders in the given folders (each searched recursively or not)."""
    found: dict[Path, CheckpointFile] = {}
    for folder, deep in zip(folders, recursive, strict=True):
        if not folder.is_dir():
            continue
        candidates = folder.rglob("*") if deep else folder.iterdir()
        for path in sorted(candidates):
            if path in found or any(parent in found for parent in path.parents):
                continue
            parsed = checkpoint_step(path.name, path.is_dir())
            if parsed is None:
                continue
            try:
                mtime_us = _latest_mtime_ns(path) // 1000
            except OSError:
                continue
            found[path] = CheckpointFile(path, parsed[0], mtime_us, parsed[1])
    return sorted(found.values(), key=lambda c: (c.mtime_us, c.step, str(c.path)))


def checkpoints_in_run(
    folders: list[Path], recursive: list[bool], start_us: int, end_us: int, source_format: str
) -> tuple[list[CheckpointFile], list[Reject]]:
    """The checkpoints in the folders that were written during the run (from its start to GRACE_US
    after its last event); each other one is a reject (`checkpoint_outside_run`: copied files?)."""
    kept, rejects = [], []
    for found in find_checkpoints(folders, recursive):
        if start_us <= found.mtime_us <= end_us + GRACE_US:
            kept.append(found)
        else:
            detail = (
                f"modified at {found.mtime_us / 1e6:.3f}, outside the run's events "
                f"{start_us / 1e6:.3f}..{end_us / 1e6:.3f}: not used"
            )
            rejects.append(Reject(source_format, display_path(found.path), "checkpoint_outside_run", detail))
    return kept, rejects
