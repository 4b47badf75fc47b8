"""What a chart's axes say against what they are: every tick label of a duration axis (the axes
runlens/report/chart.py's duration_axis formats) must read as its tick's value. conftest.py checks
every chart any test draws, the golden datasets' pages among them, before it is saved."""

from __future__ import annotations

from runlens.report.chart import DurationFormatter


def tick_label_mismatches(figure) -> list[str]:
    """For each duration axis of the figure, the ticks in view whose label is another number."""
    figure.canvas.draw()
    found = []
    for axes in figure.axes:
        for name, axis in (("x", axes.xaxis), ("y", axes.yaxis)):
            if not isinstance(axis.get_major_formatter(), DurationFormatter):
                continue
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                value, text = tick.get_loc(), tick.label1.get_text()
                if not (low - 1e-9 <= value <= high + 1e-9):
                    continue
                try:
                    read = float(text.replace(",", ""))
                except ValueError:
                    found.append(f"{axes.get_title()!r} {name} tick {value:g}: label {text!r} is not a number")
                    continue
                if abs(read - value) > 1e-9 * max(1.0, abs(value)):
                    found.append(f"{axes.get_title()!r} {name} tick {value:g} is labelled {text!r}")
    return found
