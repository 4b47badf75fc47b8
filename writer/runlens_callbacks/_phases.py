"""The framework phase a callback is in: at most one phase section open at a time."""

from __future__ import annotations

from runlens_writer import OpenSection, RunLog


class PhaseSections:
    """Switching to a phase closes the current phase's section and opens the next one. Outside an
    active run every call does nothing, so hooks that also fire outside training are harmless."""

    def __init__(self, run_log: RunLog) -> None:
        self._run_log = run_log
        self._open: OpenSection | None = None

    @property
    def current(self) -> str | None:
        """The open phase's section name, or None."""
        return None if self._open is None else self._open.name

    def switch(self, name: str | None, *, collective: bool = False) -> None:
        """End the current phase; start phase `name` (None: no phase) if the run is active;
        `collective`: the phase holds a synchronizing collective (RunLog.open_section)."""
        self.stop()
        if name is not None and self._run_log.is_active:
            self._open = self._run_log.open_section(name, collective=collective)

    def stop(self) -> None:
        """End the current phase, if any."""
        if self._open is not None:
            self._open.close()
            self._open = None
