"""The report's charts as PNG bytes (matplotlib, Agg backend): mean wall time by task, the
duration of each epoch for many-epoch collections, the pre-epoch positions against the
baseline's, and the goodput buckets of each task.

Deterministic for the same figures and library versions: fixed size and DPI, no timestamp or
software metadata, and task names drawn as plain text (math text off, so a name with `$` can
neither break nor restyle the chart).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

from runlens.report import units  # noqa: E402
from runlens.report.rows import Row  # noqa: E402
from runlens.report.words import GOODPUT_COLUMNS  # noqa: E402

LABEL_CHARACTERS = 40
# tasks drawn as lines in the epoch chart (the slowest by mean epoch first); the others are named
# in the legend's last entry as a count
CHART_EPOCH_TASKS = 8
STYLE = {"text.parse_math": False, "font.family": "DejaVu Sans", "font.size": 9}
UNIT_NAMES = {"s": "seconds", "min": "minutes", "h": "hours", "d": "days"}
# one colour per goodput bucket, the same on every page: productive green, the rest by kind
GOODPUT_COLOURS = {
    "productive": "#55A868",
    "start_up": "#8172B3",
    "checkpoint_restore": "#937860",
    "checkpoint_save": "#DA8BC3",
    "evaluation": "#4C72B0",
    "data_loading": "#64B5CD",
    "rank_waiting": "#CCB974",
    "down": "#C44E52",
    "redone": "#DD8452",
    "lost": "#8B2E2E",
    "silent": "#B0A8C8",
    "final_tail": "#8C8C8C",
    "unattributed": "#D0D0D0",
}


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


def scale_for(seconds: list[float | None]) -> tuple[str, float]:
    """The unit an axis of these durations is drawn in (units.unit_for of the largest) and its
    seconds per unit."""
    present = [abs(value) for value in seconds if value is not None]
    return units.unit_for(max(present, default=0.0))


def tick_decimals(ticks) -> int:
    """The fewest decimals that write every tick exactly (0, 2.5, 5, 7.5 need one), so that no
    tick's label says another value than the tick's; at most 6."""
    for decimals in range(7):
        if all(abs(round(tick, decimals) - tick) <= 1e-9 * max(1.0, abs(tick)) for tick in ticks):
            return decimals
    return 6


class DurationFormatter(FuncFormatter):
    """The labels of a duration axis (duration_axis): tests read every chart's by this class."""


def duration_axis(axis, unit: str) -> None:
    """At most 6 ticks at round steps, each labelled with its exact value, with the decimals the
    ticks need and no more, so short runs never get tick labels on top of each other."""
    axis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10], min_n_ticks=2))

    def label(value, _position) -> str:
        return f"{value:,.{tick_decimals(axis.get_majorticklocs())}f}"

    axis.set_major_formatter(DurationFormatter(label))


def mean_wall_by_task_png(tasks: list[Row], wall: units.WallTimes) -> bytes:
    """Horizontal bars, slowest task on top, each labelled with its mean as the page gives it: the
    axis and the labels in the page's one wall-time unit (units.WallTimes)."""
    labels = [short_label(task.task) for task in reversed(tasks)]
    seconds = [task.mean_wall_seconds for task in reversed(tasks)]
    unit, per_unit = wall.unit, wall.per_unit
    values = [value / per_unit for value in seconds]
    annotations = wall.column(seconds)
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.0 + 0.32 * len(tasks)), dpi=100)
        positions = range(len(tasks))
        axes.barh(positions, values, color="#4C72B0")
        axes.set_yticks(list(positions), labels)
        axes.set_xlabel(f"mean wall time ({UNIT_NAMES[unit]})")
        axes.set_title("Mean wall time by task")
        for position, value, text in zip(positions, values, annotations, strict=True):
            axes.annotate(text, (value, position), xytext=(3, 0), textcoords="offset points", va="center")
        axes.set_xlim(0, max(values) * 1.18 if values and max(values) > 0 else 1)
        duration_axis(axes.xaxis, unit)
        return finished_png(figure, axes)


def arrival_spread_png(arrivals: list[Row]) -> bytes:
    """Bars of one run's arrival spread (first to last rank) at each checkpoint and epoch end, in
    marker order, in the unit of the largest spread."""
    unit, per_unit = scale_for([arrival.arrival_spread_seconds for arrival in arrivals])
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 2.8), dpi=100)
        positions = range(1, len(arrivals) + 1)
        axes.bar(positions, [arrival.arrival_spread_seconds / per_unit for arrival in arrivals], color="#C44E52")
        axes.set_xlabel("checkpoint or epoch end (1 = the first), in marker order")
        axes.set_ylabel(f"first to last rank ({UNIT_NAMES[unit]})")
        axes.set_title(f"Arrival spread of the ranks of {short_label(arrivals[0].run_id)}")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        duration_axis(axes.yaxis, unit)
        return finished_png(figure, axes)


def epoch_duration_png(positions: list[Row], tasks: list[str]) -> bytes:
    """Mean duration of each epoch, one line per task (tasks in the given order, at most
    CHART_EPOCH_TASKS), epoch number across, duration up in the unit of the longest."""
    shown = tasks[:CHART_EPOCH_TASKS]
    unit, per_unit = scale_for([position.mean_seconds for position in positions])
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 3.2), dpi=100)
        for task in shown:
            points = [position for position in positions if position.task == task]
            axes.plot(
                [position.epoch_index for position in points],
                [position.mean_seconds / per_unit for position in points],
                marker="o",
                markersize=2.5,
                linewidth=1.2,
                label=short_label(task),
            )
        if len(tasks) > len(shown):
            axes.plot([], [], linestyle="none", label=f"and {len(tasks) - len(shown)} more tasks")
        axes.set_xlabel("epoch (in the order of its epoch_end)")
        axes.set_ylabel(f"mean duration ({UNIT_NAMES[unit]})")
        axes.set_title("Duration of each epoch, mean over runs")
        axes.set_ylim(bottom=0)
        axes.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True))
        duration_axis(axes.yaxis, unit)
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=4, frameon=False)
        return finished_png(figure, axes)


def position_comparison_png(positions: list[Row]) -> bytes:
    """The intervals shown in the positions table (those that moved most), this collection's mean
    and the baseline's side by side, first interval on top; a side without the interval draws no
    bar, and an interval held by few runs is drawn lighter."""
    height = 0.4
    labels = [short_label(position.label) for position in positions]
    unit, per_unit = scale_for(
        [position.mean_seconds for position in positions] + [position.baseline_mean_seconds for position in positions]
    )
    rows = list(range(len(positions)))
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.4 + 0.42 * len(positions)), dpi=100)
        for offset, side, colour, name in (
            (-height / 2, "mean_seconds", "#4C72B0", "this collection"),
            (height / 2, "baseline_mean_seconds", "#DD8452", "baseline"),
        ):
            values = [(getattr(position, side) or 0.0) / per_unit for position in positions]
            alphas = [0.45 if position.is_held_by_few_runs else 1.0 for position in positions]
            bars = axes.barh([row + offset for row in rows], values, height, color=colour, label=name)
            for bar, alpha in zip(bars, alphas, strict=True):
                bar.set_alpha(alpha)
        axes.set_yticks(rows, labels)
        axes.invert_yaxis()
        # the note says what lighter bars mean only where one is drawn lighter
        few = "; lighter: held by few runs" if any(position.is_held_by_few_runs for position in positions) else ""
        axes.set_xlabel(f"mean duration ({UNIT_NAMES[unit]}{few})")
        axes.set_title("The intervals that moved most against the baseline")
        duration_axis(axes.xaxis, unit)
        axes.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / max(len(positions), 1)), ncol=2, frameon=False
        )
        return finished_png(figure, axes)


def goodput_by_task_png(rows: list[Row], buckets: list[str]) -> bytes:
    """One bar per task (the first on top), split into the shares of its wall time in each bucket
    shown, in the buckets' order (productive first, from the left)."""
    tasks = list(dict.fromkeys(row.task for row in rows))
    shares = {(row.task, row.bucket): (row.share_of_wall or 0.0) * 100 for row in rows}
    # a task's productive share is an upper bound where a run of it has no training section
    # (agg_task_goodput.runs_unmeasured): hatched, and the legend says so
    bounded = {row.task for row in rows if row.bucket == "productive" and row.runs_unmeasured > 0}
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.6 + 0.32 * len(tasks)), dpi=100)
        positions = list(range(len(tasks)))[::-1]
        left = [0.0] * len(tasks)
        for bucket in buckets:
            widths = [shares.get((task, bucket), 0.0) for task in tasks]
            label = GOODPUT_COLUMNS[bucket]
            hatches = None
            if bucket == "productive" and bounded:
                label += " (hatched: at most)"
                hatches = ["///" if task in bounded else "" for task in tasks]
            bars = axes.barh(positions, widths, left=left, color=GOODPUT_COLOURS[bucket], label=label)
            for bar, hatch in zip(bars, hatches or [], strict=False):
                bar.set_hatch(hatch)
            left = [start + width for start, width in zip(left, widths, strict=True)]
        axes.set_yticks(positions, [short_label(task) for task in tasks])
        axes.set_xlim(0, 100)
        hatched = "\nhatched: no training section measured, so productive holds any evaluation or saving"
        hatched = hatched if bounded else ""
        axes.set_xlabel(f"share of the task's wall time (%){hatched}")
        axes.set_title("Goodput by task: where each task's time went")
        legend_below = -0.35 if bounded else -0.25
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, legend_below), ncol=min(len(buckets), 4), frameon=False)
        return finished_png(figure, axes)
