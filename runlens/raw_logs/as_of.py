"""The as-of instant a build judges live runs against (issue: when will it finish).

By default it is the moment the build starts. `RUNLENS_AS_OF` (or the dbt var `as_of`) pins it:
an ISO 8601 time such as `2026-12-01T12:00:00Z`; a time without an offset is taken as UTC. The
marts hold it as naive UTC, like every other timestamp (models/staging/input_contract.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from runlens.project import sample_dir

AS_OF_VARIABLE = "RUNLENS_AS_OF"
# The bundled sample's live collection (scripts/generate_sample.py) is a sweep in progress at this
# instant: a build of the sample with nothing pinned is pinned to it (runlens/build.py), and so
# are the tests' builds (tests/pipeline.py), so its figures are the same whenever it is built.
SAMPLE_AS_OF = "2025-03-10T12:00:00Z"


class AsOfError(ValueError):
    """RUNLENS_AS_OF is set to something that is not a time: one line that says what to do."""


def parse_as_of(text: str) -> datetime:
    """The instant `text` names, as naive UTC; raises AsOfError when it names none."""
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError:
        raise AsOfError(
            f"{AS_OF_VARIABLE}={text!r} is not a time: give an ISO 8601 time such as 2026-12-01T12:00:00Z, or unset it"
        ) from None
    if instant.tzinfo is not None:
        instant = instant.astimezone(UTC).replace(tzinfo=None)
    return instant


def pinned_as_of() -> datetime | None:
    """RUNLENS_AS_OF as naive UTC, or None when it is not set (the build's start is the as-of time)."""
    text = os.environ.get(AS_OF_VARIABLE, "").strip()
    return parse_as_of(text) if text else None


def sample_pin(raw_dir: str | Path, environ: Mapping[str, str]) -> dict[str, str]:
    """{RUNLENS_AS_OF: SAMPLE_AS_OF} when raw_dir is the bundled sample and nothing is pinned yet
    (the sample's live collection then reads as the sweep in progress it was written as), else {}."""
    if environ.get(AS_OF_VARIABLE, "").strip():
        return {}
    try:
        is_sample = Path(raw_dir).resolve() == sample_dir().resolve()
    except OSError:
        return {}
    return {AS_OF_VARIABLE: SAMPLE_AS_OF} if is_sample else {}
