"""The as-of instant a build judges live runs against (issue: when will it finish).

By default it is the moment the build starts. `RUNLENS_AS_OF` (or the dbt var `as_of`) pins it,
and so does a raw folder's own `runlens_as_of.txt` (folder_metadata.py) when neither is set: an
ISO 8601 time such as `2026-12-01T12:00:00Z`; a time without an offset is taken as UTC. The marts
hold it as naive UTC, like every other timestamp (models/staging/input_contract.md). The bundled
sample carries its as-of time that way, so any build of it (a plain `dbt build` too) judges its
live collection as the sweep in progress it was written as.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from runlens.raw_logs.folder_metadata import AS_OF_FILE, folder_as_of
from runlens.raw_logs.listing import raw_dir as default_raw_dir

AS_OF_VARIABLE = "RUNLENS_AS_OF"
# The bundled sample's live collection (scripts/generate_sample.py) is a sweep in progress at this
# instant: the generator writes it into data/sample/runlens_as_of.txt, and the tests' builds pin
# it (tests/support/pipeline.py), so the sample's figures are the same whenever it is built.
SAMPLE_AS_OF = "2025-03-10T12:00:00Z"


class AsOfError(ValueError):
    """RUNLENS_AS_OF is set to something that is not a time: one line that says what to do."""


def parse_as_of(text: str, origin: str = AS_OF_VARIABLE) -> datetime:
    """The instant `text` names, as naive UTC; raises AsOfError, naming where the text came from
    (origin), when it names none."""
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError:
        what_to_do = "or unset it" if origin == AS_OF_VARIABLE else "or remove the file"
        raise AsOfError(
            f"{origin}={text!r} is not a time: give an ISO 8601 time such as 2026-12-01T12:00:00Z, {what_to_do}"
        ) from None
    if instant.tzinfo is not None:
        instant = instant.astimezone(UTC).replace(tzinfo=None)
    return instant


def pinned_as_of(raw_dir: str | Path | None = None) -> datetime | None:
    """The pinned as-of time as naive UTC: RUNLENS_AS_OF, else the raw folder's runlens_as_of.txt
    (raw_dir, default the build's raw folder), else None (the build's start is the as-of time)."""
    text = os.environ.get(AS_OF_VARIABLE, "").strip()
    if text:
        return parse_as_of(text)
    folder = default_raw_dir() if raw_dir is None else raw_dir
    text = folder_as_of(folder)
    return None if text is None else parse_as_of(text, str(Path(folder) / AS_OF_FILE))
