"""The timeline chart of a collection's runs, as PNG bytes (matplotlib, Agg backend): the runs the
page's query gives (queries/run_segments.sql: the latest data.SHOWN_TIMELINE_RUNS by their first
start; the title says so when the collection has more), one bar per run from its first run_start
to its end, in the stretches it ran (a restart's downtime is a gap),
coloured by task; a run still running is drawn to the as-of time and ends in an arrow, a stalled
run ends in a cross at its last event, an abandoned one in a grey cross there, and a failed run in a
black cross where its failed run_end ended it. Time runs across in
the unit that fits the span (chart.scale_for), with round tick steps.

Deterministic as the other chart (report/chart.py): fixed size and DPI, no metadata, names drawn
as plain text, colours fixed by the task's order.
"""

from __future__ import annotations

from datetime import datetime

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)
from matplotlib.patches import Patch  # noqa: E402

from runlens.report.chart import STYLE, UNIT_NAMES, duration_axis, finished_png, scale_for, short_label  # noqa: E402
from runlens.report.rows import Row  # noqa: E402

PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")
# the cross at the end of a run that did not finish: its colour by why
END_MARKS = {"stalled": "#C44E52", "abandoned": "#8C8C8C", "failed": "black"}


def seconds_after(start: datetime, instant: datetime) -> float:
    return (instant - start).total_seconds()


def timeline_png(segments: list[Row], as_of: datetime | None) -> bytes:
    """One row per run (first started on top), time since the collection's first run_start; the
    as-of time as a dashed line when given (a collection with a run still going)."""
    run_ids = list(dict.fromkeys(segment.run_id for segment in segments))
    rows = {run_id: index for index, run_id in enumerate(run_ids)}
    last_segments = {segment.run_id: segment for segment in segments}  # in segment order: each run's last
    tasks = sorted({segment.task for segment in segments})
    colours = {task: PALETTE[index % len(PALETTE)] for index, task in enumerate(tasks)}
    origin = min(segment.started_at for segment in segments)
    ends = [seconds_after(origin, segment.ended_at) for segment in segments]
    if as_of is not None:
        ends.append(seconds_after(origin, as_of))
    unit, per_unit = scale_for(ends)
    with matplotlib.rc_context(STYLE):
        figure, axes = pyplot.subplots(figsize=(7.5, 1.4 + 0.22 * len(run_ids)), dpi=100)
        for segment in segments:
            row = rows[segment.run_id]
            start = seconds_after(origin, segment.started_at) / per_unit
            end = seconds_after(origin, segment.ended_at) / per_unit
            axes.barh(row, end - start, left=start, height=0.6, color=colours[segment.task])
            if segment.is_open and segment.live_status == "running":
                axes.plot(end, row, marker=">", color="black", markersize=5)
        for run_id, row in rows.items():
            last = last_segments[run_id]
            colour = END_MARKS.get("failed" if last.run_status == "failed" else last.live_status)
            if colour is not None:
                axes.plot(seconds_after(origin, last.ended_at) / per_unit, row, marker="x", color=colour, markersize=6)
        if as_of is not None:
            axes.axvline(seconds_after(origin, as_of) / per_unit, color="black", linewidth=0.8, linestyle="--")
        axes.set_yticks(list(rows.values()), [short_label(run_id) for run_id in rows])
        axes.invert_yaxis()
        axes.set_xlim(left=0)
        duration_axis(axes.xaxis, unit)
        total = segments[0].collection_runs
        states = {segment.live_status for segment in segments}
        failed = any(segment.run_status == "failed" for segment in segments)
        marks = [
            mark
            for mark, shown in (
                ("dashed: the as-of time", as_of is not None),
                ("> running", any(segment.is_open and segment.live_status == "running" for segment in segments)),
                ("red x stalled", "stalled" in states),
                ("grey x abandoned", "abandoned" in states),
                ("black x failed", failed),
            )
            if shown
        ]
        legend = f" ({'; '.join(marks)})" if marks else ""
        since = "the first run_start shown" if total > len(run_ids) else "the first run_start"
        axes.set_xlabel(f"{UNIT_NAMES[unit]} since {since}{legend}")
        which = f"The latest {len(run_ids):,} of {total:,} runs" if total > len(run_ids) else "Runs"
        axes.set_title(f"{which} over time, by task")
        handles = [Patch(color=colours[task], label=short_label(task)) for task in tasks]
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
        return finished_png(figure, axes)
