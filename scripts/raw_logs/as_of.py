"""The as-of instant a build judges live runs against (issue: when will it finish).

By default it is the moment the build starts. `RUNLENS_AS_OF` (or the dbt var `as_of`) pins it:
an ISO 8601 time such as `2026-12-01T12:00:00Z`; a time without an offset is taken as UTC. The
marts hold it as naive UTC, like every other timestamp (models/staging/input_contract.md).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

AS_OF_VARIABLE = "RUNLENS_AS_OF"


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
