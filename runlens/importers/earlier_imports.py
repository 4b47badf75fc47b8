"""Importing a source again replaces what its earlier import wrote, instead of piling up beside it.

A run's file name comes from its run id, and the id can change between two imports of the same
source (a TensorBoard run's id starts with the folder name of the PATH it was found below, an
MLflow run's with its run name), and a run can leave its source. So each import records, per
source (its real path), the run files it wrote in `<out>/_import_sources.json` (a name that is no
log: runlens/raw_logs/listing.py), and removes the files an earlier import of the same source
wrote that this one did not write again. Files of other sources stay.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

SOURCES_FILE = "_import_sources.json"


def source_key(path: Path) -> str:
    return os.path.realpath(path)


def replace_earlier(out: Path, written: dict[str, list[Path]]) -> list[Path]:
    """Record the files written per source key; remove those of an earlier import of the same
    sources that were not written again. Returns the removed files."""
    record_path = out / SOURCES_FILE
    try:
        recorded = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = {}
    removed = []
    for key, files in written.items():
        now = {file.relative_to(out).as_posix() for file in files}
        for earlier in recorded.get(key, []):
            path = out / earlier
            if earlier not in now and path.is_file() and path.resolve().is_relative_to(out.resolve()):
                path.unlink()
                removed.append(path)
        recorded[key] = sorted(now)
    temporary = record_path.with_name(record_path.name + ".tmp")
    temporary.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, record_path)
    return removed
