"""A duration axis labels each tick with its exact value (the decimals the ticks need), and the
check conftest.py applies to every chart drawn catches one that does not."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402

from runlens.report.chart import DurationFormatter, duration_axis, tick_decimals  # noqa: E402
from tests.support.chart_ticks import tick_label_mismatches  # noqa: E402


def labels_of(limit: float) -> tuple[list[float], list[str]]:
    figure, axes = pyplot.subplots()
    axes.set_xlim(0, limit)
    duration_axis(axes.xaxis, "min")
    figure.canvas.draw()
    ticks = [tick for tick in axes.xaxis.get_major_ticks() if 0 <= tick.get_loc() <= limit]
    found = [tick.get_loc() for tick in ticks], [tick.label1.get_text() for tick in ticks]
    assert tick_label_mismatches(figure) == []
    pyplot.close(figure)
    return found


def test_quarter_steps_keep_their_decimal():
    """A 0-13 axis gets ticks every 2.5 (at most 6 steps of 1, 2, 2.5, 5 or 10): 7.5 is not "8"."""
    values, labels = labels_of(13.0)
    assert values == [0.0, 2.5, 5.0, 7.5, 10.0, 12.5]
    assert labels == ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5"]


def test_whole_steps_get_no_decimals_and_small_steps_as_many_as_they_need():
    assert labels_of(50.0)[1] == ["0", "10", "20", "30", "40", "50"]
    values, labels = labels_of(0.5)
    assert labels == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"] and values[-1] == 0.5
    assert tick_decimals([0, 0.25, 0.5]) == 2
    assert tick_decimals([1000, 2000]) == 0


def test_the_check_names_a_label_that_is_another_value():
    """The old labels (no decimals for steps of 1 or more) printed 7.5 as "8": the check says so."""
    figure, axes = pyplot.subplots()
    axes.set_xlim(0, 13)
    duration_axis(axes.xaxis, "min")
    axes.xaxis.set_major_formatter(DurationFormatter(lambda value, _position: f"{value:,.0f}"))
    axes.set_title("Run timeline")
    found = tick_label_mismatches(figure)
    pyplot.close(figure)
    assert found == [
        "'Run timeline' x tick 2.5 is labelled '2'",
        "'Run timeline' x tick 7.5 is labelled '8'",
        "'Run timeline' x tick 12.5 is labelled '12'",
    ]
