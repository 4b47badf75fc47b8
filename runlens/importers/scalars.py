"""Markers from logged scalars: epoch ends and, where no checkpoint file exists, checkpoints.

Every marker derived here is approximate. The frameworks' conventions it reads, and how a
session's train_start is found: docs/importers.md, "Markers from logged scalars".
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass

DEFAULT_EVAL_PATTERN = r"^(eval|val|valid|validation)([/_]|$)"
_TOLERANCE = 1e-4


@dataclass(frozen=True)
class Point:
    ts_us: int
    step: int
    value: float
    source_path: str


@dataclass(frozen=True)
class Marker:
    ts_us: int
    step: int | None
    epoch: int | None
    source_path: str
    reason: str


Series = dict[str, list[Point]]


def detect_style(series: Series, epoch_tag: str | None = None, hint: str | None = None) -> str:
    """lightning | hf | keras | unknown, from tag names and the epoch scalar's values."""
    if hint:
        return hint
    tags = set(series)
    if any(t.startswith(("train/", "eval/")) for t in tags):
        return "hf"
    epoch = series.get(epoch_tag or "epoch", [])
    if any(abs(p.value - round(p.value)) > _TOLERANCE for p in epoch):
        return "hf"
    if "hp_metric" in tags or any(t.endswith(("_epoch", "_step")) for t in tags):
        return "lightning"
    if epoch and min(p.value for p in epoch) < 0.5:
        return "lightning"
    if any(t.startswith("epoch_") for t in tags):
        return "keras"
    if epoch:
        return "hf"  # whole epochs counted from 1: the Trainer with logging per epoch
    return "unknown"


def epoch_tag_for(series: Series, style: str, epoch_tag: str | None) -> str | None:
    if epoch_tag:
        return epoch_tag if epoch_tag in series else None
    for candidate in ("train/epoch", "epoch") if style == "hf" else ("epoch",):
        if candidate in series:
            return candidate
    return None


def _is_eval(tag: str, eval_pattern: re.Pattern) -> bool:
    return bool(eval_pattern.search(tag)) or tag.startswith("epoch_val")


def epoch_ends(
    series: Series,
    style: str,
    eval_pattern: re.Pattern,
    epoch_tag: str | None = None,
    finished: bool | None = None,
) -> list[Marker]:
    """The epoch ends that the series show, by the style's convention.

    `finished`: whether the run is known to have ended normally (MLflow FINISHED); it lets the
    final epoch of a Lightning run count as complete when nothing else says so.
    """
    tag = epoch_tag_for(series, style, epoch_tag)
    if style == "hf" and tag:
        return _crossings(series[tag], tag)
    if style == "lightning":
        epoch_level = {t: p for t, p in series.items() if t.endswith("_epoch") and not _is_eval(t, eval_pattern)}
        if epoch_level:
            return _lightning_epoch_metrics(epoch_level, series.get(tag or "epoch", []))
        if tag:
            return _lightning_epoch_changes(series[tag], tag, finished)
        return []
    if style == "keras":
        epoch_level = {t: p for t, p in series.items() if t.startswith("epoch_")} or series
        return _per_epoch_steps(epoch_level)
    return []


def _crossings(points: list[Point], tag: str) -> list[Marker]:
    ordered = sorted(points, key=lambda p: (p.ts_us, p.step))
    if not ordered:
        return []
    markers = []
    top = math.floor(max(p.value for p in ordered) + _TOLERANCE)
    for whole in range(1, top + 1):
        first = next(p for p in ordered if p.value >= whole - _TOLERANCE)
        exact_step = abs(first.value - whole) <= _TOLERANCE
        step = first.step if exact_step or first.value <= 0 else round(whole * first.step / first.value)
        # one wording for every epoch of every run: a page states each approximation once, with
        # its count (agg_collection_marker_approximations groups by it)
        markers.append(
            Marker(
                first.ts_us,
                step,
                whole,
                first.source_path,
                f"epoch_end taken from the first log where {tag!r} reached or passed the epoch's number: "
                "the epoch ended at or before it",
            )
        )
    return markers


def _epoch_at(epoch_points: list[Point], step: int) -> int | None:
    values = [p.value for p in epoch_points if p.step == step]
    return round(values[-1]) if values else None


def _lightning_epoch_metrics(epoch_level: Series, epoch_points: list[Point]) -> list[Marker]:
    by_step: dict[int, list[Point]] = defaultdict(list)
    for points in epoch_level.values():
        for p in points:
            by_step[p.step].append(p)
    markers = []
    names = ", ".join(sorted(epoch_level))
    for index, step in enumerate(sorted(by_step), start=1):
        last = max(by_step[step], key=lambda p: (p.ts_us, p.source_path))
        current = _epoch_at(epoch_points, step)
        epoch = current + 1 if current is not None else index
        markers.append(
            Marker(
                last.ts_us,
                step + 1,
                epoch,
                last.source_path,
                f"epoch_end taken from Lightning's epoch-level metrics ({names}), logged right after the epoch",
            )
        )
    return markers


def _lightning_epoch_changes(points: list[Point], tag: str, finished: bool | None) -> list[Marker]:
    ordered = sorted(points, key=lambda p: (p.ts_us, p.step))
    markers = []
    reason = "epoch_end taken from the last log of the epoch ({tag!r} = {value}): the epoch ended at or after it"
    for here, after in zip(ordered, ordered[1:], strict=False):
        if after.value > here.value + _TOLERANCE:
            markers.append(
                Marker(
                    here.ts_us,
                    here.step + 1,
                    round(here.value) + 1,
                    here.source_path,
                    reason.format(tag=tag, value=round(here.value)),
                )
            )
    if ordered:
        last = ordered[-1]
        complete = finished is True and not markers
        if markers:
            steps_per_epoch = markers[0].step / markers[0].epoch if markers[0].epoch else None
            complete = bool(steps_per_epoch) and last.step + 1 == round(steps_per_epoch * (round(last.value) + 1))
        if complete:
            markers.append(
                Marker(
                    last.ts_us,
                    last.step + 1,
                    round(last.value) + 1,
                    last.source_path,
                    reason.format(tag=tag, value=round(last.value)) + " (its last step completes the epoch)",
                )
            )
    return markers


def _per_epoch_steps(epoch_level: Series) -> list[Marker]:
    by_step: dict[int, list[Point]] = defaultdict(list)
    for points in epoch_level.values():
        for p in points:
            by_step[p.step].append(p)
    names = ", ".join(sorted(epoch_level)[:4]) + (", ..." if len(epoch_level) > 4 else "")
    markers = []
    for step in sorted(by_step):
        last = max(by_step[step], key=lambda p: (p.ts_us, p.source_path))
        markers.append(
            Marker(
                last.ts_us,
                None,
                step + 1,
                last.source_path,
                f"epoch_end taken from the per-epoch metrics ({names}), logged under each epoch's index",
            )
        )
    return markers


def eval_checkpoints(series: Series, style: str, eval_pattern: re.Pattern, every: int | None) -> list[Marker]:
    """Checkpoints stood in for by evaluation logs, for runs without checkpoint files.

    `every`: the save interval in steps when known (only evaluations at multiples count); None:
    every evaluation is taken as a save; 0: none.
    """
    if every == 0 or style == "keras":
        return []
    by_step: dict[int, list[Point]] = defaultdict(list)
    for tag, points in series.items():
        if _is_eval(tag, eval_pattern):
            for p in points:
                by_step[p.step].append(p)
    markers = []
    for logged_step in sorted(by_step):
        group = by_step[logged_step]
        if style == "lightning":
            step = logged_step + 1
            first = min(group, key=lambda p: (p.ts_us, p.source_path))
            picked, reason = (
                first,
                "no checkpoint file found: time of the evaluation logged one step before the checkpoint's "
                "(Lightning logs step N as N - 1; ModelCheckpoint(every_n_train_steps) saves just before that "
                "validation, so earlier)",
            )
        else:
            step = logged_step
            last = max(group, key=lambda p: (p.ts_us, p.source_path))
            saves = "the Trainer saves right after evaluating, so later"
            if style == "plain":  # a loop of the user's own (W&B's importer): no convention to go by
                saves = "a plain loop: a save is assumed at each evaluation"
            picked, reason = (
                last,
                f"no checkpoint file found: time of the evaluation at the checkpoint's step ({saves})",
            )
        if step <= 0 or (every and step % every):
            continue
        markers.append(Marker(picked.ts_us, step, None, picked.source_path, reason))
    return markers


# tags logged during set-up, before training: Lightning's hyperparameter placeholder at step 0
SET_UP_TAGS = frozenset({"hp_metric"})
TRAIN_START_PACED = (
    "train_start estimated from the first two logged training steps: the first one's time, moved back over "
    "the steps before it at the pace between the two"
)
TRAIN_START_FIRST_LOG = "train_start taken from the first logged training metric: training began before it"


def training_start(
    series: Series,
    style: str,
    eval_pattern: re.Pattern,
    window: tuple[int | None, int | None] = (None, None),
    from_step: int | None = 0,
    source_path: str | None = None,
) -> Marker | None:
    """Where a session's training began (its train_start, approximate), from its first logged
    training points (no evaluation's tag) within `window` (start, end: microseconds) and, when
    given, one source: the first point's time, moved back at the pace of the next logged step
    over the steps from `from_step` (the step training starts from: 0, or a restored
    checkpoint's) to the first point's. None for Keras, which logs once an epoch ends (the pace
    before an epoch is not seen), and for a session without training points."""
    if style == "keras":
        return None
    start, end = window
    points = sorted(
        (
            point
            for tag, tagged in series.items()
            if not _is_eval(tag, eval_pattern) and tag not in SET_UP_TAGS
            for point in tagged
            if (start is None or point.ts_us >= start)
            and (end is None or point.ts_us < end)
            and (source_path is None or point.source_path == source_path)
        ),
        key=lambda point: (point.ts_us, point.step),
    )
    if not points:
        return None
    first = points[0]
    following = next((point for point in points if point.step > first.step and point.ts_us > first.ts_us), None)
    if from_step is None or following is None or first.step <= from_step:
        return Marker(first.ts_us, from_step, None, first.source_path, TRAIN_START_FIRST_LOG)
    pace = (following.ts_us - first.ts_us) / (following.step - first.step)
    began = round(first.ts_us - pace * (first.step - from_step))
    return Marker(max(began, start or began), from_step, None, first.source_path, TRAIN_START_PACED)
