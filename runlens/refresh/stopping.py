"""Stopping a long command on Ctrl-C (SIGINT) or SIGTERM at any moment, within a bound.

The first signal raises KeyboardInterrupt in the main thread, so the command unwinds through its
own cleanup and says in one line what state it left, and arms a deadline: if the process is still
running GRACE_SECONDS later (a call into DuckDB or dbt that does not return soon, an `except` that
took the interrupt for an error), the cleanups registered meanwhile run (the build's copy of the
database, its lock), the same line is printed and the process exits anyway. A second signal does
that at once. The exit status is 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM.
A step that must not be cut in two (taking a lock and registering its removal) runs in
`deferred()`: a signal that comes meanwhile takes effect when the step ends.

Once a stopped command has unwound (its cleanups done, its last line printed), the process runs its
exit handlers and leaves at once (`leave_if_stopped`): the interpreter's own teardown would free
every object dbt left (its parsed manifest, its adapters) one by one, which takes seconds on a busy
machine, and the deadline cannot cut it short (no thread of Python's runs again once the
interpreter is shutting down).
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

GRACE_SECONDS = 1.2
SIGNALS = (signal.SIGINT, signal.SIGTERM)
_active: list[Stopping] = []  # the handlers installed now, if any
_stopped: list[int] = []  # the signals that stopped a command of this process


class Stopping:
    """The signal handlers of one command, and what must be undone if it has to exit at once."""

    def __init__(self, last_line: Callable[[], str]) -> None:
        self.last_line = last_line  # the one line that says what state the command leaves
        self.signal_number: int | None = None
        self._cleanups: dict[int, Callable[[], None]] = {}
        self._next_token = 0
        self._lock = threading.RLock()
        self._ended = False
        self._deferring = 0  # how many deferred() blocks the main thread is in

    @property
    def requested(self) -> bool:
        return self.signal_number is not None

    @property
    def exit_status(self) -> int:
        return 128 + (self.signal_number or signal.SIGINT)

    def check(self) -> None:
        """Raise KeyboardInterrupt when a stop was asked for (after an `except` that took it for an error)."""
        if self.requested:
            raise KeyboardInterrupt

    @contextmanager
    def cleanup(self, undo: Callable[[], None]) -> Iterator[None]:
        """Run undo if the process has to exit while the block runs (not when it ends normally)."""
        with self._lock:
            token = self._next_token
            self._next_token += 1
            self._cleanups[token] = undo
        try:
            yield
        finally:
            with self._lock:
                self._cleanups.pop(token, None)

    def end(self) -> int:
        """Print the last line once and give the exit status (the command's normal way out)."""
        with self._lock:
            if not self._ended:
                self._ended = True
                print(self.last_line(), file=sys.stderr, flush=True)
        return self.exit_status

    def _exit_now(self) -> None:
        """Undo what is still registered, print the last line unless it was printed, and exit."""
        with self._lock:
            for undo in reversed(list(self._cleanups.values())):  # the latest first, as `finally` blocks unwind
                try:
                    undo()
                except Exception:  # noqa: BLE001 (exiting: undo what can be undone)
                    pass
            self._cleanups.clear()
            self.end()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001
                    pass
            os._exit(self.exit_status)

    def _deadline(self) -> None:
        threading.Event().wait(GRACE_SECONDS)
        self._exit_now()

    def _handle(self, signal_number: int, frame) -> None:
        if self.requested:
            self._exit_now()
            return
        self.signal_number = signal_number
        _stopped.append(signal_number)
        threading.Thread(target=self._deadline, name="runlens-stop-deadline", daemon=True).start()
        if not self._deferring:
            raise KeyboardInterrupt

    @contextmanager
    def installed(self) -> Iterator[Stopping]:
        """The handlers for SIGINT and SIGTERM while the block runs (a SIGINT that the shell told
        this process to ignore included: the command says Ctrl-C stops it)."""
        saved = {number: signal.getsignal(number) for number in SIGNALS}
        for number in SIGNALS:
            signal.signal(number, self._handle)
        _active.append(self)
        try:
            yield self
        finally:
            _active.remove(self)
            for number, handler in saved.items():
                signal.signal(number, handler)


def stop_requested() -> bool:
    """Whether the handlers installed now were told to stop (an interrupt taken for an error)."""
    return any(stopping.requested for stopping in _active)


@contextmanager
def deferred() -> Iterator[None]:
    """A signal that comes while the block runs raises KeyboardInterrupt when the block ends, not
    inside it (the deadline still holds); nothing without handlers installed."""
    if not _active:
        yield
        return
    stopping = _active[-1]
    stopping._deferring += 1
    try:
        yield
    finally:
        stopping._deferring -= 1
    if not stopping._deferring:
        stopping.check()


@contextmanager
def undone_on_exit(undo: Callable[[], None]) -> Iterator[None]:
    """Run undo if the command has to exit at once while the block runs (Stopping.cleanup of
    the handlers installed now; nothing without them)."""
    if not _active:
        yield
        return
    with _active[-1].cleanup(undo):
        yield


def leave_if_stopped(status: int) -> None:
    """Exit at once with status, skipping the interpreter's teardown, when a signal stopped the
    command that just returned status (nothing otherwise)."""
    if not _stopped:
        return
    atexit._run_exitfuncs()  # what exits at once still does: logging's flush, multiprocessing's semaphores
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 (exiting: a closed stream has nothing to flush)
            pass
    os._exit(status)
