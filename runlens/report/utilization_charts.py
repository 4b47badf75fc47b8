"""The GPU utilization charts of a page, as PNG bytes (matplotlib, Agg backend, deterministic as
report/chart.py's): the GPU-hours each kind of interval held, busy and idle, the same for a task by
kind of interval and by part of the sessions, and the utilization of the collection's longest run
interval by interval, its markers drawn where they fell."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)

from runlens.report.chart import STYLE, UNIT_NAMES, duration_axis, finished_png, scale_for, short_label  # noqa: E402
from runlens.report.rows import Row  # noqa: E402

BUSY, IDLE, UNMEASURED = "#55A868", "#C44E52", "#D0D0D0"


def busy_idle_bars(axes, labels: list[str], rows: list[Row]) -> None:
    """One bar per row (the first on top): the GPU-hours it held, split into busy (measured
    GPU-hours x utilization), idle (def_idle_gpu_hours) and not measured."""
    busy = [
        (row.measured_gpu_hours or 0.0) - (row.idle_gpu_hours or 0.0) if row.idle_gpu_hours is not None else 0.0
        for row in rows
    ]
    idle = [row.idle_gpu_hours or 0.0 for row in rows]
    unmeasured = [row.unmeasured_gpu_hours or 0.0 for row in rows]
    positions = list(range(len(rows)))[::-1]
    left = [0.0] * len(rows)
    for values, colour, label in (
        (busy, BUSY, "busy"),
        (idle, IDLE, "idle"),
        (unmeasured, UNMEASURED, "not measured"),
    ):
        if any(values):
            axes.barh(positions, values, left=left, color=colour, label=label)
            left = [start + value for start, value in zip(left, values, strict=True)]
    axes.set_yticks(positions, labels)
    axes.set_xlim(left=0, auto=None)  # the right end still follows the bars (of every axes sharing it)


def utilization_by_kind_png(kinds: list[Row]) -> bytes:
    """One bar per kind of interval (the most idle GPU-hours on top), busy, idle and not measured."""
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.6 + 0.32 * len(kinds)), dpi=100)
        busy_idle_bars(axes, [short_label(kind.interval_kind) for kind in kinds], kinds)
        axes.set_xlabel("GPU-hours held (busy: GPU-hours x utilization; idle: the rest)")
        axes.set_title("GPU-hours by kind of interval: busy and idle")
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3, frameon=False)
        return finished_png(figure, axes)


def task_utilization_png(task: str, kinds: list[Row], parts: list[Row]) -> bytes:
    """A task's GPU-hours twice, by kind of interval (above) and by part of the sessions (below), on
    one scale (each split holds all of the task's GPU-hours), busy, idle and not measured, the most
    idle GPU-hours on top of each."""
    splits = [
        (rows, label, title)
        for rows, label, title in (
            (kinds, "interval_kind", "by kind of interval"),
            (parts, "part", "by part of the sessions"),
        )
        if rows
    ]
    with matplotlib.rc_context(STYLE):
        figure, all_axes = pyplot.subplots(
            len(splits),
            1,
            figsize=(7.5, 1.4 + sum(0.6 + 0.32 * len(rows) for rows, _, _ in splits)),
            dpi=100,
            sharex=True,
            height_ratios=[0.6 + len(rows) for rows, _, _ in splits],
            squeeze=False,
        )
        for axes, (rows, label, title) in zip(all_axes[:, 0], splits, strict=True):
            busy_idle_bars(axes, [short_label(getattr(row, label)) for row in rows], rows)
            axes.set_title(title, loc="left", fontsize=9)
            axes.spines[["top", "right"]].set_visible(False)
        last = all_axes[-1, 0]
        last.set_xlabel("GPU-hours held (busy: GPU-hours x utilization; idle: the rest)")
        handles = {}
        for axes in all_axes[:, 0]:
            for handle, name in zip(*axes.get_legend_handles_labels(), strict=True):
                handles.setdefault(name, handle)
        last.legend(
            handles.values(), handles.keys(), loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=3, frameon=False
        )
        figure.suptitle(f"GPU-hours of task {short_label(task)}: busy and idle")
        return finished_png(figure, last)


def utilization_timeline_png(intervals: list[Row]) -> bytes:
    """The run's utilization over its time: each measured interval's mean as a step from its start
    to its end (an unmeasured one left blank), a marker as a dotted line where an interval ends."""
    origin = intervals[0].started_at
    ends = [(interval.ended_at - origin).total_seconds() for interval in intervals]
    unit, per_unit = scale_for(ends)
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 2.8), dpi=100)
        for interval in intervals:
            start = (interval.started_at - origin).total_seconds() / per_unit
            end = (interval.ended_at - origin).total_seconds() / per_unit
            if interval.mean_gpu_utilization_pct is not None and end > start:
                axes.hlines(interval.mean_gpu_utilization_pct, start, end, color=BUSY, linewidth=2.5)
            axes.axvline(end, color="#8C8C8C", linewidth=0.6, linestyle=":")
        axes.set_ylim(0, 100)
        axes.set_xlim(left=0)
        duration_axis(axes.xaxis, unit)
        axes.set_ylabel("GPU utilization (%)")
        axes.set_xlabel(f"{UNIT_NAMES[unit]} since its run_start (dotted: its markers; a gap: not measured)")
        axes.set_title(f"GPU utilization of the longest run, {short_label(intervals[0].run_id)}, interval by interval")
        return finished_png(figure, axes)
