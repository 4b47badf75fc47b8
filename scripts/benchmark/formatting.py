"""Numbers as the bench's tables show them: thousands separated, floats to a few digits, a dash for
no figure."""

from __future__ import annotations


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
