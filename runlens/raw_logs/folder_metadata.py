"""What a folder of logs says about itself, beside its logs (input_contract.md, "Folder metadata").

Reads the two optional files at the top of the raw folder, `runlens_collections.csv` and
`runlens_as_of.txt`; a file that cannot be used raises MetadataError. Their columns, what wins over
them and when they are read: docs/internals.md, "Folder metadata".
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

COLLECTIONS_FILE = "runlens_collections.csv"
COLLECTIONS_VARIABLE = "RUNLENS_COLLECTIONS"
AS_OF_FILE = "runlens_as_of.txt"
COLUMNS = ("collection", "title", "baseline_collection", "design_url", "results_url")


class MetadataError(ValueError):
    """A metadata file that cannot be used; the message is one line that says what to do."""


def collections_path(raw_dir: str | os.PathLike) -> Path:
    """The collections file a build reads: RUNLENS_COLLECTIONS, else the raw folder's own."""
    named = os.environ.get(COLLECTIONS_VARIABLE, "").strip()
    return Path(named) if named else Path(raw_dir) / COLLECTIONS_FILE


def read_collections(raw_dir: str | os.PathLike) -> list[dict[str, str | None]]:
    """The collections file's rows, one dict per collection with every column of COLUMNS (empty
    cells and missing columns as None); [] when the raw folder has no such file."""
    path = collections_path(raw_dir)
    named = bool(os.environ.get(COLLECTIONS_VARIABLE, "").strip())
    if not path.is_file():
        if named:
            raise MetadataError(
                f"{COLLECTIONS_VARIABLE}={path} is no file: point it at a CSV of collections, or unset it"
            )
        return []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise MetadataError(f"cannot read {path} ({error}): make it a UTF-8 CSV file this user can read") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in reader.fieldnames or []]
    if "collection" not in header:
        raise MetadataError(
            f"{path} has no `collection` column: its first line names the columns ({', '.join(COLUMNS)})"
        )
    unknown = [name for name in header if name not in COLUMNS]
    if unknown:
        raise MetadataError(f"{path} has unknown columns ({', '.join(unknown)}): use only {', '.join(COLUMNS)}")
    rows, seen = [], set()
    for line_number, raw_row in enumerate(reader, start=2):
        row = {name.strip(): (value or "").strip() or None for name, value in raw_row.items() if name is not None}
        collection = row.get("collection")
        if collection is None:
            if any(row.values()):
                raise MetadataError(f"{path}:{line_number} names no collection: fill in its `collection` column")
            continue  # a blank line
        if collection in seen:
            raise MetadataError(f"{path}:{line_number} names {collection!r} a second time: keep one row per collection")
        seen.add(collection)
        rows.append({name: row.get(name) for name in COLUMNS})
    return rows


def folder_as_of(raw_dir: str | os.PathLike) -> str | None:
    """The time the raw folder's runlens_as_of.txt pins (its text, stripped), or None without one."""
    path = Path(raw_dir) / AS_OF_FILE
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise MetadataError(f"cannot read {path} ({error}): write one ISO 8601 time in it, or remove it") from None
    return text or None
