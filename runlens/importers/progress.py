"""Progress of a long import on stderr: files done of total and runs found, then one summary line."""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

from runlens.plural import plural


class Progress:
    """Prints `files 3/10, runs 2` at most every `every` seconds (and always the last one).

    On a terminal the line is rewritten in place; elsewhere (CI logs, pipes) each update is a line.
    """

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False, every: float = 1.0) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.every = every
        self.done = 0
        self.runs = 0
        self._last = float("-inf")
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def advance(self, files: int, runs: int) -> None:
        self.done += files
        self.runs += runs
        now = time.monotonic()
        if self.done >= self.total or now - self._last >= self.every:
            self._last = now
            self._print(f"files {self.done}/{self.total}, runs {self.runs}", final=self.done >= self.total)

    def note(self, text: str) -> None:
        if not self.quiet:
            self._clear()
            print(f"note: {text}", file=self.stream)

    def _print(self, text: str, final: bool) -> None:
        if self.quiet:
            return
        if self._tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
            self.stream.flush()
        else:
            print(text, file=self.stream)

    def _clear(self) -> None:
        if self._tty and self.done < self.total:
            self.stream.write("\r")


def summary(
    runs: list,
    rejects: list,
    files: int,
    out: str,
    rejects_path: str | None,
    notes: int,
    quiet: bool = False,
    samples: int = 0,
    traces: int = 0,
) -> str:
    """The one line that ends an import (`samples`: those of cluster GPU logs, written to their runs;
    `traces`: the profiler traces copied)."""
    by_format = Counter(run.source_format for run in runs)
    events = sum(len(run.events) for run in runs)
    approximate = sum(run.approximate_count for run in runs)
    formats = ", ".join(f"{name} {count}" for name, count in sorted(by_format.items()))
    text = f"imported {plural(len(runs), 'run')}"
    text += f" ({formats})" if formats else ""
    text += f" from {plural(files, 'file')} into {out}: {plural(events, 'event')}, {approximate} approximate"
    if samples:
        text += f", and {plural(samples, 'utilization sample')} of cluster GPU logs"
    if traces:
        text += f", and {plural(traces, 'profiler trace')} copied"
    if rejects:
        reasons = Counter(r.reason for r in rejects)
        listed = ", ".join(f"{name} {count}" for name, count in sorted(reasons.items()))
        text += f"; {plural(len(rejects), 'reject')} ({listed}) in {rejects_path}"
    else:
        text += "; no rejects"
    if notes:
        text += f"; {plural(notes, 'note')} " + ("(hidden by --quiet)" if quiet else "above")
    return text
