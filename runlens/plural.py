"""Counts in messages and reports, with the noun in the right number: `1 page`, `3 pages`, `0 runs`."""

from __future__ import annotations


def noun(count: int, singular: str, plural_form: str | None = None) -> str:
    """The noun for count things: singular for exactly one, else plural_form (default: singular + "s")."""
    return singular if count == 1 else plural_form or singular + "s"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`<count> <noun>`: `plural(1, "page")` is `1 page`, `plural(3, "page")` is `3 pages`."""
    return f"{count} {noun(count, singular, plural_form)}"
