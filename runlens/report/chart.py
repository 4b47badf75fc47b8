"""The report's charts as PNG bytes (matplotlib, Agg backend): mean wall time by task, and the
duration of each epoch for many-epoch collections, and the pre-epoch positions against the
baseline's.

Deterministic for the same figures and library versions: fixed size and DPI, no timestamp or
software metadata, and task names drawn as plain text (math text off, so a name with `$` can
neither break nor restyle the chart).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)

from runlens.report.data import EpochPosition, PositionComparison, TaskRuntime  # noqa: E402
from runlens.report.markdown import fmt_hours  # noqa: E402

LABEL_CHARACTERS = 40
# tasks drawn as lines in the epoch chart (the slowest by mean epoch first); the others are named
# in the legend's last entry as a count
CHART_EPOCH_TASKS = 8
STYLE = {"text.parse_math": False, "font.family": "DejaVu Sans", "font.size": 9}


def finished_png(figure, axes) -> bytes:
    """The figure as PNG bytes, deterministically (no software metadata), closed after: every
    chart ends here."""
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    pyplot.close(figure)
    return buffer.getvalue()


def short_label(name: str) -> str:
    return name if len(name) <= LABEL_CHARACTERS else name[: LABEL_CHARACTERS - 1] + "…"


def mean_wall_by_task_png(tasks: list[TaskRuntime]) -> bytes:
    """Horizontal bars, slowest task on top, each labelled with its mean in hours."""
    labels = [short_label(task.task) for task in reversed(tasks)]
    values = [task.mean_wall_hours for task in reversed(tasks)]
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.0 + 0.42 * len(tasks)), dpi=100)
        positions = range(len(tasks))
        axes.barh(positions, values, color="#4C72B0")
        axes.set_yticks(list(positions), labels)
        axes.set_xlabel("mean wall time (hours)")
        axes.set_title("Mean wall time by task")
        for position, value in zip(positions, values, strict=True):
            axes.annotate(fmt_hours(value), (value, position), xytext=(3, 0), textcoords="offset points", va="center")
        axes.set_xlim(0, max(values) * 1.15 if values and max(values) > 0 else 1)
        return finished_png(figure, axes)


def epoch_duration_png(positions: list[EpochPosition], tasks: list[str]) -> bytes:
    """Mean duration of each epoch, one line per task (tasks in the given order, at most
    CHART_EPOCH_TASKS), epoch number across, minutes up."""
    shown = tasks[:CHART_EPOCH_TASKS]
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 3.2), dpi=100)
        for task in shown:
            points = [position for position in positions if position.task == task]
            axes.plot(
                [position.epoch_index for position in points],
                [position.mean_minutes for position in points],
                marker="o",
                markersize=2.5,
                linewidth=1.2,
                label=short_label(task),
            )
        if len(tasks) > len(shown):
            axes.plot([], [], linestyle="none", label=f"and {len(tasks) - len(shown)} more tasks")
        axes.set_xlabel("epoch (in the order of its epoch_end)")
        axes.set_ylabel("mean duration (minutes)")
        axes.set_title("Duration of each epoch, mean over runs")
        axes.set_ylim(bottom=0)
        axes.legend(loc="best", frameon=False)
        return finished_png(figure, axes)


def position_comparison_png(positions: list[PositionComparison]) -> bytes:
    """Mean duration at each pre-epoch position, this collection's and the baseline's side by side."""
    width = 0.4
    indexes = [position.interval_index for position in positions]
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 3.2), dpi=100)
        axes.bar(
            [index - width / 2 for index in indexes],
            [position.mean_minutes for position in positions],
            width,
            color="#4C72B0",
            label="this collection",
        )
        axes.bar(
            [index + width / 2 for index in indexes],
            [position.baseline_mean_minutes for position in positions],
            width,
            color="#DD8452",
            label="baseline",
        )
        axes.set_xticks(indexes, [str(index) for index in indexes])
        axes.set_xlabel("pre-epoch interval position (1 = opening block)")
        axes.set_ylabel("mean duration (minutes)")
        axes.set_title("Pre-epoch windows against the baseline")
        axes.legend(loc="best", frameon=False)
        return finished_png(figure, axes)
