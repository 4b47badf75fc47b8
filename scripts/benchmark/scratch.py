"""The bench's scratch folders: made fresh for each step, and what a step leaves removed unless
--keep."""

from __future__ import annotations

import shutil
from pathlib import Path


def fresh_folder(folder: Path) -> Path:
    """An empty folder at `folder` (whatever was there is removed)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def remove(*paths: Path) -> None:
    """Remove files and folders; missing ones are fine."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
