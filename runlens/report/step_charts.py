"""The chart of a page's "Inside a step" section, as PNG bytes (matplotlib, Agg backend,
deterministic as report/chart.py's): each task's profiled steps, their GPU time split into
computation, communication, memory, other and idle (agg_task_step_parts), one stacked bar a task."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)
from matplotlib.transforms import offset_copy  # noqa: E402

from runlens.report.chart import STYLE, finished_png, short_label  # noqa: E402
from runlens.report.rows import Row  # noqa: E402

PART_COLOURS = {
    "computation": "#55A868",
    "communication": "#4C72B0",
    "memory": "#8172B2",
    "other": "#CCB974",
    "idle": "#C44E52",
}
LEGEND_BELOW_POINTS = 36  # the tick labels and the axis label take about 30 points below the axes


def step_split_png(tasks: list[Row], parts: list[Row]) -> bytes:
    """One bar per task with GPU events (in the page's order, the first on top): the shares of its
    steps' GPU span by part, as the marts give them; a part no task has is left out of the legend."""
    shown = [task for task in tasks if task.has_gpu_events]
    share = {(part.task, part.part): part.share_of_gpu_span or 0.0 for part in parts}
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.6 + 0.32 * len(shown)), dpi=100)
        positions = list(range(len(shown)))[::-1]
        left = [0.0] * len(shown)
        for name, colour in PART_COLOURS.items():
            values = [share.get((task.task, name), 0.0) * 100 for task in shown]
            if any(values):
                axes.barh(positions, values, left=left, color=colour, label=name)
                left = [start + value for start, value in zip(left, values, strict=True)]
        axes.set_yticks(positions, [short_label(task.task) for task in shown])
        axes.set_xlim(0, 100)
        axes.set_xlabel("share of the steps' GPU time (%)")
        axes.set_title("Inside a step: the GPU's time by task")
        # below the axis label at a fixed distance: a share of the axes' height lands on the label
        # when the chart has one bar
        below = offset_copy(axes.transAxes, fig=figure, y=-LEGEND_BELOW_POINTS, units="points")
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, ncol=5, frameon=False)
        return finished_png(figure, axes)
