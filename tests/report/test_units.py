"""Units and precision that fit the magnitude (runlens/report/units.py, rules.md "Units and
precision"). Every expected string below is worked out by hand from the rule, not copied from
the code: seconds below 2 min, minutes below 2 h, hours below 72 h, else days; three significant
digits at the geometric middle of the smallest and largest figures; more decimals (at most two)
while figures that differ by more than 0.5% would print the same."""

from __future__ import annotations

import math

import pytest

from runlens.report import units


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (None, "n/a"),
        (float("nan"), "n/a"),
        (3.21, "3.21 s"),  # a writer run of a few seconds, never 0.00 h
        (0.512, "0.512 s"),
        (92.5, "92.5 s"),
        (119.4, "119 s"),
        (120, "2.00 min"),  # 120 s is where minutes start: 2 min to three digits
        (816.09, "13.6 min"),  # the sample's opening interval: 13.6015 min
        (3000, "50.0 min"),
        (3599, "60.0 min"),  # 59.983 min: under an hour, so minutes, to three digits
        (3600, "1.00 h"),  # an hour is where hours start
        (5399, "1.50 h"),  # 1.49972 h to three digits
        (7199, "2.00 h"),  # 1.99972 h
        (7200, "2.00 h"),
        (5400 * 1.6, "2.40 h"),
        (8928, "2.48 h"),
        (36900, "10.3 h"),  # 10.25 h: a tie at the last digit rounds up, as a reader rounds
        (259199, "72.0 h"),
        (259200, "3.00 d"),
        (620000, "7.18 d"),  # a run silent for a week: 7.1759 d
    ],
)
def test_one_duration_takes_the_unit_of_its_size(seconds, text):
    assert units.duration(seconds) == text


def test_a_short_run_gets_seconds_and_a_long_one_hours():
    # a 0.02 h run (72 s) is 72.0 s, not 0.02 h; its 4.3 s interval is 4.30 s
    assert units.duration(72) == "72.0 s"
    assert units.duration(4.3) == "4.30 s"


def test_close_neighbours_are_told_apart():
    # fairseq's five slowest epochs (92.5, 90.5, 88.5, 88.5 and 88 s): seconds, one decimal, not
    # five ties at 1.5 min; the true tie stays a tie
    assert units.duration_column([92.5, 90.5, 88.5, 88.5, 88.0]) == ["92.5 s", "90.5 s", "88.5 s", "88.5 s", "88.0 s"]
    # 999.1 s and 1004.9 s are 16.652 and 16.748 min, 0.58% apart: 16.7 min twice at one decimal,
    # so two decimals
    assert units.duration_column([999.1, 1004.9]) == ["16.65 min", "16.75 min"]
    # 1000 and 1004 s are 0.4% apart: no more digits for them
    assert units.duration_column([1000, 1004]) == ["16.7 min", "16.7 min"]


def test_a_sentence_compares_in_one_unit():
    # the first epoch (92.5 s) against the later epochs' median (87.5 s): seconds both, never
    # "1.5 min" beside "+5 s"
    assert units.durations(92.5, 87.5) == ["92.5 s", "87.5 s"]
    # 1.24 h against 10.25 h (4464 s, 36900 s): both over an hour, hours; three significant
    # digits each (10.25 rounds half up: 10.3)
    assert units.durations(4464, 36900) == ["1.24 h", "10.3 h"]


def test_columns_side_by_side_share_a_unit():
    means, baselines, deltas = units.duration_columns([600, 660], [7200, 9000], [-6600, -8340], signed=(0, 0, 1))
    # 10 and 11 min beside 2 and 2.5 h: one figure is under an hour, so minutes for all (never
    # 0.167 h for ten minutes), each to three significant digits
    assert means == ["10.0 min", "11.0 min"]
    assert baselines == ["120 min", "150 min"]
    assert deltas == ["-110 min", "-139 min"]


def test_a_column_takes_minutes_when_one_figure_is_under_an_hour():
    # the sample's task means, 48.4 min to 118.2 min (2905 s, 7092 s): minutes both, never
    # 0.807 h beside 1.970 h; three significant digits each
    assert units.duration_column([2905, 7092]) == ["48.4 min", "118 min"]
    # 4.1 s beside 2.5 h and 104.4 min: minutes (one is under an hour, one over 2 min); 4.1 s is
    # 0.0683 min, cut to MAX_DECIMALS (3) decimals
    assert units.duration_column([4.1, 9000, 6264]) == ["0.068 min", "150 min", "104 min"]
    # 60 s and 5940 s: 1 and 99 min
    assert units.duration_column([60, 5940]) == ["1.00 min", "99.0 min"]
    # all under 2 min: seconds
    assert units.duration_column([4.1, 92.5]) == ["4.10 s", "92.5 s"]
    # all over an hour: hours (days when all are 72 h or more)
    assert units.duration_column([3600, 36900]) == ["1.00 h", "10.3 h"]


def test_the_same_figure_reads_the_same_whatever_its_neighbours():
    # 23.99 min as the opening block beside a 1 min tail, and as the first interval beside its
    # baseline's 20.6 min: 24.0 min both times
    assert units.duration_column([1439.4, 60])[0] == units.duration_column([1439.4, 1237.2])[0] == "24.0 min"


def test_a_figure_below_the_last_digit_is_not_printed_as_zero():
    # the writer's quick runs: an interval of 1 microsecond beside one of 1.85 s: three decimals
    # at most, so the microsecond is below the last digit: "< 0.001 s", never 0.00000100 s
    assert units.duration_column([0.000001, 1.85]) == ["< 0.001 s", "1.85 s"]
    assert units.duration(0.000001) == "< 0.001 s"
    assert units.percent(0.00000049) == "< 0.001%"  # 0.000049%


def test_signed_deltas():
    assert units.signed_duration(270) == "+4.50 min"
    assert units.signed_duration(-6120) == "-1.70 h"  # 102 min is over an hour
    assert units.signed_duration(-9000) == "-2.50 h"
    assert units.duration_column([0.0, 150], signed=True) == ["0 min", "+2.50 min"]  # exactly 0: no digits


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.582165, "58.2%"),
        (0.118123, "11.8%"),
        (0.0075, "0.75%"),
        (0.00095, "0.095%"),
        (0, "0%"),
        (None, "n/a"),
        (1, "100.0%"),
    ],
)
def test_percent(share, text):
    assert units.percent(share) == text


def test_a_small_share_keeps_two_digits_without_widening_the_column():
    # the many-epoch kinds: 72.554%, 21.957%, 3.279%, 2.115%, 0.095%, 0: one decimal from 1% up
    assert units.percent_column([0.72554, 0.21957, 0.03279, 0.02115, 0.00095, 0.0]) == [
        "72.6%", "22.0%", "3.3%", "2.1%", "0.095%", "0%",
    ]  # fmt: skip


def test_percent_column_tells_neighbours_apart():
    # 13.91% and 13.90% are 0.07% apart: 13.9% both; 14.86% and 14.81%... also within 0.5%;
    # 10.04% and 10.00% are 0.4% apart
    assert units.percent_column([0.1391, 0.1390]) == ["13.9%", "13.9%"]
    # 10.04% and 9.96% are 0.8% apart but print 10.0% both at one decimal: two decimals
    assert units.percent_column([0.1004, 0.0996]) == ["10.04%", "9.96%"]


@pytest.mark.parametrize(
    ("speedup", "text"),
    [
        (8.262526, "8.26x faster"),  # v3 against v2
        (0.7518082, "1.33x slower"),  # v4 against v3, raw: 1 / 0.7518 = 1.3301
        (0.8831511, "1.13x slower"),  # on matched tasks: 1.1323
        (1.0, "1.00x (the same)"),
        (12.36, "12.4x faster"),
        (250.0, "250x faster"),
        (0, "n/a"),
        (None, "n/a"),
    ],
)
def test_one_speedup_convention_with_its_word(speedup, text):
    assert units.speedup(speedup) == text


@pytest.mark.parametrize(
    ("speedup", "same"),
    [(1.0, True), (1.09, True), (1 / 1.09, True), (1.1, False), (1 / 1.1, False), (0.5, False), (None, False)],
)
def test_about_the_same_is_within_ten_percent_either_way(speedup, same):
    assert units.is_about_the_same(speedup) is same


@pytest.mark.parametrize(("value", "text"), [(1.4799, "1.47x"), (1.4999, "1.49x"), (1.5, "1.50x"), (2.83, "2.83x")])
def test_a_multiple_is_never_rounded_up_to_its_threshold(value, text):
    # a straggler's 1.47 times its task's median must not read as the threshold 1.5x
    assert units.multiple(value) == text


def test_counts_and_lists():
    assert units.count(1234) == "1,234"
    assert units.count(None) == "n/a"
    assert units.list_of(["a"]) == "a"
    assert units.list_of(["a", "b", "c"]) == "a, b and c"


def test_a_figure_at_a_half_prints_the_same_whatever_order_it_was_summed_in():
    """A parallel engine sums in no fixed order, so the same mean comes out a few ulps apart from
    one build to the next (the sample's 6.175 min read 6.17 from one build and 6.18 from another).
    370.5 s is 6.175 min, a tie at the third digit: half up, 6.18 min, from each neighbour; a share
    of 1.25% reads 1.3% (one decimal), and 0.750 / 0.667 min = 1.125 reads 1.13x."""
    for noisy in (370.5, math.nextafter(370.5, 0), math.nextafter(370.5, 1000), 370.5 * (1 + 4e-16)):
        assert units.duration(noisy) == "6.18 min"
    for noisy in (0.0125, math.nextafter(0.0125, 0), math.nextafter(0.0125, 1)):
        assert units.percent(noisy) == "1.3%"
    for noisy in (45 / 40, math.nextafter(45 / 40, 0)):
        assert units.speedup(1 / noisy) == "1.13x slower"


@pytest.mark.parametrize(
    ("median", "text"),
    [(50.0, "50"), (50, "50"), (5.5, "5.5"), (1234.0, "1,234"), (None, "n/a")],
)
def test_a_median_of_counts_reads_as_a_count(median, text):
    """`a median of 50 epoch ends per run`, never `50.0` (a count has no decimals); a median of an
    even number of runs may fall halfway between two counts."""
    assert units.median_count(median) == text
