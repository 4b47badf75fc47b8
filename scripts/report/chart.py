"""The bar chart of mean wall time by task, as PNG bytes (matplotlib, Agg backend).

Deterministic for the same figures and library versions: fixed size and DPI, no timestamp or
software metadata, and task names drawn as plain text (math text off, so a name with `$` can
neither break nor restyle the chart).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)

from report.data import TaskRuntime  # noqa: E402
from report.markdown import fmt_hours  # noqa: E402

LABEL_CHARACTERS = 40
STYLE = {"text.parse_math": False, "font.family": "DejaVu Sans", "font.size": 9}


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
        axes.spines[["top", "right"]].set_visible(False)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", metadata={"Software": None})
        pyplot.close(figure)
    return buffer.getvalue()
