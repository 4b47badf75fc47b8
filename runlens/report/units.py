"""Figures as a reader reads them: a unit that fits the magnitude, digits that tell neighbours apart.

This module only formats the marts' figures (standard library only). The rules: rules.md ("Units
and precision"); this module's own statement of them is in docs/internals.md, "Report units".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

# (unit, seconds per unit, the size below which it is used): 2 min, 1 h, 72 h, then days
UNIT_LIMITS = (("s", 1.0, 120.0), ("min", 60.0, 3600.0), ("h", 3600.0, 259200.0), ("d", 86400.0, math.inf))
SIGNIFICANT_DIGITS = 3
EXTRA_DECIMALS = 2  # at most this many more decimals to tell neighbours apart
DIFFERENT_BY = 0.005  # two figures within 0.5% of each other need not print differently
MAX_DECIMALS = 3  # below a thousandth of a unit (1 ms, 0.001%), a figure prints as `< 0.001`
SPEEDUP_SAME = 1.1  # within this factor either way, two means are "about the same" (rules.md)
# A sum of floats depends on the order it was added in, which a parallel engine does not fix: the
# same mean reads 36911.975000000006 from one build and 36911.974999999999 from another. Figures
# are taken to this many significant digits before they are rounded (half up) to what a page
# shows, so that a figure at a half (100.5 s, 2.345 h) prints the same from every build.
EXACT_DIGITS = 12


def _finite(value) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def unit_for(seconds: float) -> tuple[str, float]:
    """The unit a duration of this many seconds (its size) is shown in, and its seconds per unit."""
    size = abs(seconds)
    for unit, per_unit, below in UNIT_LIMITS:
        if size < below:
            return unit, per_unit
    return UNIT_LIMITS[-1][0], UNIT_LIMITS[-1][1]


def column_unit(smallest: float, largest: float) -> tuple[str, float]:
    """The one unit of figures shown together (a column, or a sentence that compares them): none
    under an hour in hours, so minutes when one is under an hour (seconds when all are under 2
    min); else the smallest figure's unit (hours, or days when all are 72 h or more)."""
    if smallest < UNIT_LIMITS[1][2]:
        return UNIT_LIMITS[0][:2] if largest < UNIT_LIMITS[0][2] else UNIT_LIMITS[1][:2]
    return unit_for(smallest)


def base_decimals(largest: float, digits: int = SIGNIFICANT_DIGITS) -> int:
    """Decimals that give `largest` (in its display unit) `digits` significant digits."""
    if largest == 0:
        return 0
    return max(0, digits - 1 - math.floor(math.log10(abs(largest))))


def exact(value: float) -> Decimal:
    """The figure without the float noise of the order it was summed in (EXACT_DIGITS)."""
    return Decimal(format(value, f".{EXACT_DIGITS}g"))


def _number(value: float, decimals: int, signed: bool, rounding: str = ROUND_HALF_UP) -> str:
    rounded = exact(value).quantize(Decimal(1).scaleb(-decimals), rounding=rounding)
    text = format(rounded, f"{'+' if signed else ''},.{decimals}f")
    if text[0] in "+-" and not any(digit in text for digit in "123456789"):
        text = text[1:]  # -0.00 / +0.00 -> 0.00
    return text


def duration_columns(*columns: Sequence[float | None], signed: bool | Sequence[bool] = False) -> list[list[str]]:
    """Columns of durations (seconds) that sit side by side and compare (a collection's means and
    its baseline's, and their difference): one unit (`column_unit`); each figure to three
    significant digits (at most MAX_DECIMALS decimals), so that a figure reads the same in every
    table and sentence that gives it in that unit, and up to EXTRA_DECIMALS more in a column
    while two of its figures that differ by more than 0.5% would print the same. `signed` (one
    flag, or one per column) puts + before positive figures (a delta)."""
    signs = [signed] * len(columns) if isinstance(signed, bool) else list(signed)
    present = [number for column in columns for number in map(_finite, column) if number is not None]
    if not present:
        return [["n/a" for _ in column] for column in columns]
    # figures below the last digit any column shows (1 ms) print as `< ...`: they choose no unit
    # while larger ones are there
    nonzero = sorted(abs(number) for number in present if number != 0)
    sizes = [size for size in nonzero if size >= UNIT_LIMITS[0][1] * 10**-MAX_DECIMALS] or nonzero or [0.0]
    unit, per_unit = column_unit(sizes[0], sizes[-1])

    def text(number: float | None, sign: bool, extra: int) -> str:
        if number is None:
            return "n/a"
        if number == 0:
            return f"0 {unit}"
        decimals = min(base_decimals(number / per_unit) + extra, MAX_DECIMALS)
        shown = _number(number / per_unit, decimals, sign)
        if not any(digit in shown for digit in "123456789"):  # not 0, but below the last digit shown
            return f"< {_number(10**-MAX_DECIMALS, MAX_DECIMALS, False)} {unit}"
        return f"{shown} {unit}"

    def column_texts(column: Sequence[float | None], sign: bool) -> list[str]:
        values = sorted(number for number in map(_finite, column) if number is not None)
        pairs = [
            (a, b) for a, b in zip(values, values[1:], strict=False) if abs(b - a) > DIFFERENT_BY * max(abs(a), abs(b))
        ]
        extra = next(
            (
                extra
                for extra in range(EXTRA_DECIMALS + 1)
                if all(text(a, False, extra) != text(b, False, extra) for a, b in pairs)
            ),
            EXTRA_DECIMALS,
        )
        return [text(number, sign, extra) for number in map(_finite, column)]

    return [column_texts(column, sign) for column, sign in zip(columns, signs, strict=True)]


def duration_column(values: Sequence[float | None], signed: bool = False) -> list[str]:
    """Durations in seconds, as one column (duration_columns)."""
    return duration_columns(values, signed=signed)[0]


def duration(seconds: float | None, signed: bool = False) -> str:
    """One duration in the unit of its own size: 92.5 s, 13.6 min, 2.48 h; exactly 0 is `0 s`."""
    number = _finite(seconds)
    if number == 0:
        return "0 s"
    return duration_column([number], signed)[0]


def durations(*seconds: float | None) -> list[str]:
    """Durations that one sentence compares, in one unit."""
    return duration_column(list(seconds))


def signed_duration(seconds: float | None) -> str:
    return duration(seconds, signed=True)


@dataclass(frozen=True)
class WallTimes:
    """The whole-run wall times of a report (a collection's mean, median and p90, its tasks',
    its baseline's, its stragglers', its longest run, on every page and the index) in one unit
    (`column_unit`), each to three
    significant digits (at most `MAX_DECIMALS` decimals: 74.5 min, 118 min, 1.24 h, 0.068 min):
    the same figure reads the same in every sentence and table of the page, and none under an
    hour reads in hours."""

    unit: str
    per_unit: float

    def __call__(self, seconds: float | None) -> str:
        number = _finite(seconds)
        if number is None:
            return "n/a"
        if number == 0:
            return f"0 {self.unit}"
        # three significant digits, at most MAX_DECIMALS: the text depends on the figure alone,
        # so it reads the same wherever the page gives it
        decimals = min(base_decimals(number / self.per_unit), MAX_DECIMALS)
        shown = _number(number / self.per_unit, decimals, False)
        if not any(digit in shown for digit in "123456789"):
            return f"< {_number(10**-decimals, decimals, False)} {self.unit}"
        return f"{shown} {self.unit}"

    def column(self, values: Iterable[float | None]) -> list[str]:
        return [self(value) for value in values]


def wall_times(seconds: Iterable[float | None]) -> WallTimes:
    """The page's wall-time format, from every whole-run wall time it shows."""
    sizes = [abs(number) for number in map(_finite, seconds) if number is not None and number != 0]
    unit, per_unit = column_unit(min(sizes), max(sizes)) if sizes else UNIT_LIMITS[0][:2]
    return WallTimes(unit, per_unit)


def _percent_text(percentage: float, extra: int) -> str:
    """One decimal from 1% up, two significant digits below (0.095%), at most MAX_DECIMALS
    decimals (`< 0.001%` below), exactly 0 as 0%."""
    if percentage == 0:
        return "0%"
    decimals = 1 if abs(percentage) >= 1 else 1 - math.floor(math.log10(abs(percentage)))
    decimals = min(decimals + extra, MAX_DECIMALS)
    shown = _number(percentage, decimals, False)
    if not any(digit in shown for digit in "123456789"):
        return f"< {_number(10**-decimals, decimals, False)}%"
    return f"{shown}%"


def percent_column(shares: Sequence[float | None]) -> list[str]:
    """Shares (fractions) as percentages of one column: one decimal from 1% up, two significant
    digits below, and more decimals (at most EXTRA_DECIMALS) while two shares that differ by more
    than DIFFERENT_BY would print the same."""
    present = sorted(number * 100 for number in map(_finite, shares) if number is not None)
    pairs = [
        (a, b) for a, b in zip(present, present[1:], strict=False) if abs(b - a) > DIFFERENT_BY * max(abs(a), abs(b))
    ]
    extra = next(
        (
            extra
            for extra in range(EXTRA_DECIMALS + 1)
            if all(_percent_text(a, extra) != _percent_text(b, extra) for a, b in pairs)
        ),
        EXTRA_DECIMALS,
    )
    return ["n/a" if number is None else _percent_text(number * 100, extra) for number in map(_finite, shares)]


def percent(share: float | None) -> str:
    return percent_column([share])[0]


def utilization(percentage: float | None) -> str:
    """A utilization the marts give in percent (0 to 100), as percent(): `52.8%`."""
    return percent(None if percentage is None else percentage / 100)


def points(change: float | None) -> str:
    """A change of a share (a fraction: 0.05 is 5 points) as signed percentage points: one decimal
    from 1 point up, two significant digits below (+0.021 pp), exactly 0 as 0 pp."""
    number = _finite(change)
    if number is None:
        return "n/a"
    value = number * 100
    if value == 0:
        return "0 pp"
    decimals = min(1 if abs(value) >= 1 else 1 - math.floor(math.log10(abs(value))), MAX_DECIMALS)
    shown = _number(value, decimals, True)
    if not any(digit in shown for digit in "123456789"):
        return f"< {_number(10**-decimals, decimals, False)} pp"
    return f"{shown} pp"


def points_column(changes: Sequence[float | None]) -> list[str]:
    return [points(change) for change in changes]


def gpu_hour_texts(values: Sequence[float | None]) -> list[str]:
    """GPU-hours, each to three significant digits (at most MAX_DECIMALS decimals): a sweep's 250
    beside a restart's 0.42."""
    return [
        "n/a" if number is None else _number(number, min(base_decimals(number), MAX_DECIMALS), False)
        for number in map(_finite, values)
    ]


def factor(speedup: float) -> float:
    """The slower side's mean over the faster side's: at least 1."""
    return speedup if speedup >= 1 else 1 / speedup


def _factor_text(value: float) -> str:
    decimals = 2 if value < 10 else 1 if value < 100 else 0
    return _number(value, decimals, False)


def speedup(value: float | None) -> str:
    """A speedup (baseline over collection) as the factor with its word: `8.26x faster`,
    `1.33x slower`; `n/a` when unknown or 0."""
    number = _finite(value)
    if number is None or number <= 0:
        return "n/a"
    if _factor_text(factor(number)) == _factor_text(1.0):
        return "1.00x (the same)"
    return f"{_factor_text(factor(number))}x {'faster' if number > 1 else 'slower'}"


def is_about_the_same(value: float | None, within: float = SPEEDUP_SAME) -> bool:
    """Two means within a factor `within` of each other, either way (the pages pass 1 + the
    build's regression_threshold, dim_build; SPEEDUP_SAME without a build)."""
    number = _finite(value)
    return number is not None and number > 0 and factor(number) < within


def count(value: int | float | None) -> str:
    """`1234` -> `1,234`."""
    if isinstance(value, int):
        return f"{value:,}"
    number = _finite(value)
    return "n/a" if number is None else _number(number, 0, False)


def median_count(value: float | None) -> str:
    """A median of counts, which is whole or halfway between two: `50` (never `50.0`), `5.5`."""
    number = _finite(value)
    if number is None:
        return "n/a"
    return count(int(number)) if float(number).is_integer() else _number(number, 1, False)


def setting(value: float | None) -> str:
    """A threshold as the dbt var states it: `3`, `3.5`, `0.25` (no trailing zeros)."""
    number = _finite(value)
    return "n/a" if number is None else f"{number:g}"


def setting_percent(share: float | None) -> str:
    """A threshold share as a percentage with the digits it has: 0.1 -> `10%`, 0.025 -> `2.5%`."""
    number = _finite(share)
    return "n/a" if number is None else f"{round(number * 100, 9):g}%"


def setting_duration(seconds: float | None) -> str:
    """A threshold in seconds in the largest unit that holds it whole: 600 -> `10 min`, 10 -> `10 s`."""
    number = _finite(seconds)
    if number is None:
        return "n/a"
    for unit, size in (("h", 3600), ("min", 60)):
        if number >= size and number % size == 0:
            return f"{number / size:g} {unit}"
    return f"{number:g} s"


def decimal(value: float | None, decimals: int = 2) -> str:
    number = _finite(value)
    return "n/a" if number is None else _number(number, decimals, False)


def multiple(value: float | None) -> str:
    """A multiple such as a run's wall time over its peers' median, exactly enough to compare it
    with a threshold: 1.47x (two decimals, never rounded up to the threshold's 1.5x)."""
    number = _finite(value)
    if number is None:
        return "n/a"
    return f"{_number(number, 2, False, rounding=ROUND_FLOOR)}x"


def list_of(items: Iterable[str], conjunction: str = "and") -> str:
    """`a`, `a and b`, `a, b and c`."""
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
