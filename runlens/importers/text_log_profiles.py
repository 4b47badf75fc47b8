"""What a text log states about where one process's time went -> cumulative `profile` events.

A fairseq log states each save's time (`writing took N seconds`), when each validation began
(`begin validation on "valid" subset`) and ended (its summary line, `valid on 'valid' subset`), and
each epoch's training time (`train_wall` in the epoch's summary line: that epoch's, not a running
total). `ProcessProfiles` gathers them for one process (a restart in the log is a new process, whose
counters start again) and makes a cumulative profile at each epoch's end and one where the process
ends. The rules: docs/importers.md, "Text logs: where the time went".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from runlens.plural import plural

SAVE_SECTION = "checkpoint_save"
VALIDATION_SECTION = "validation"
TRAIN_SECTION = "train"


@dataclass(frozen=True)
class Snapshot:
    """The process's figures at one moment: what a profile written then says."""

    ts_us: int
    line: int
    precise: bool  # the moment's log line has sub-second times
    at: str  # where it is written, in words: "epoch 3's end", "the run_end line"
    saves: tuple[float, ...]  # each save time stated so far
    validations: tuple[float, ...]  # each closed validation's seconds so far
    epochs: tuple[int, ...]  # the epochs that ended so far, in order
    final: bool = False


@dataclass
class ProcessProfiles:
    """One process of a text log: its stated figures as they come, line by line."""

    start_us: int
    start_line: int
    start_precise: bool
    saves: list[float] = field(default_factory=list)
    validations: list[float] = field(default_factory=list)
    validation_stated: bool = False  # a `begin validation` line was seen in this process
    train_walls: dict[int, float] = field(default_factory=dict)  # epoch -> its train_wall
    epochs: list[int] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    _open: tuple[int, int] | None = None  # an open validation: (its begin, saves stated before it)

    def save(self, seconds: float) -> None:
        if math.isfinite(seconds) and seconds >= 0:
            self.saves.append(seconds)

    def validation_begins(self, ts_us: int) -> None:
        self.validation_stated = True
        if self._open is None:  # a second subset's begin inside an open validation: still validating
            self._open = (ts_us, len(self.saves))

    def validation_ends(self, ts_us: int) -> None:
        """Its summary line: validation ended here, before any save that follows."""
        self._close(ts_us)

    def train_wall(self, epoch: int | None, seconds: float) -> None:
        """An epoch's stated training time; without an epoch number, the latest ended epoch's."""
        if epoch is None:
            epoch = self.epochs[-1] if self.epochs else None
        if epoch is not None and math.isfinite(seconds) and seconds >= 0:
            self.train_walls.setdefault(epoch, seconds)

    def epoch_ends(self, ts_us: int, line: int, precise: bool, epoch: int) -> None:
        """A validation still open at its epoch's end ends there, less the saves stated since it
        began (their seconds are checkpoint_save's)."""
        self._close(ts_us)
        self.epochs.append(epoch)
        self._snapshot(ts_us, line, precise, f"epoch {epoch}'s end", final=False)

    def ends(self, ts_us: int, line: int, precise: bool, at: str, final: bool) -> None:
        """The process's end (its run_end line, else its last timed line). A validation still open
        is left out: the log does not say when it ended."""
        self._open = None
        self._snapshot(ts_us, line, precise, at, final)

    def _close(self, ts_us: int) -> None:
        if self._open is None:
            return
        began, saves_before = self._open
        seconds = (ts_us - began) / 1_000_000 - math.fsum(self.saves[saves_before:])
        self.validations.append(max(seconds, 0.0))
        self._open = None

    def _snapshot(self, ts_us: int, line: int, precise: bool, at: str, final: bool) -> None:
        taken = Snapshot(
            ts_us, line, precise, at, tuple(self.saves), tuple(self.validations), tuple(self.epochs), final
        )
        if self.snapshots and self.snapshots[-1].ts_us == ts_us:
            self.snapshots[-1] = taken  # one profile per moment: the later figures hold the earlier
        else:
            self.snapshots.append(taken)

    def has_train(self) -> bool:
        """train is stated only when every epoch that ended in this process stated its train_wall."""
        return bool(self.epochs) and all(epoch in self.train_walls for epoch in self.epochs)

    def profiles(self) -> list[tuple[Snapshot, dict]]:
        """(snapshot, the profile's fields) for each profile; none when the process states no figure."""
        train = self.has_train()
        if not (self.saves or self.validation_stated or train):
            return []
        out = []
        for taken in self.snapshots:
            sections, sources = {}, {}
            if self.saves:
                sections[SAVE_SECTION] = round(math.fsum(taken.saves), 6)
                sources[SAVE_SECTION] = f"the sum of the {plural(len(taken.saves), 'save time')} the log states"
            if self.validation_stated:
                sections[VALIDATION_SECTION] = round(math.fsum(taken.validations), 6)
                sources[VALIDATION_SECTION] = (
                    f"{plural(len(taken.validations), 'validation')} the log states, each from its `begin validation` "
                    "line to its summary line (or its epoch's end, less the save times stated in between)"
                )
            if train:
                sections[TRAIN_SECTION] = round(math.fsum(self.train_walls[e] for e in taken.epochs), 6)
                epochs = plural(len(taken.epochs), "epoch")
                sources[TRAIN_SECTION] = f"the sum of the train_wall the log states for each of {epochs}"
            fields = {
                "wall_seconds": (taken.ts_us - self.start_us) / 1_000_000,
                "sections": sections,
                "final": taken.final,
                "source_line": taken.line,
                "wall_seconds_source": f"the log's span from this process's first timed line (line {self.start_line}) "
                f"to {taken.at}",
                "section_sources": sources,
            }
            out.append((taken, fields))
        return out

    def whole_second_train_walls(self) -> bool:
        return self.has_train() and all(float(seconds).is_integer() for seconds in self.train_walls.values())
