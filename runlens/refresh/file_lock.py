"""An exclusive lock held through a file made for it, and removed when the lock is let go.

`held(path)` takes the lock without waiting (raises Busy when another process holds it) and
removes the file when the block ends, so no lock file stays behind a finished command. A process
that opened the file just before its holder removed it would lock a file no longer at that path:
after locking, the file is checked to be the one at the path, and otherwise opened again.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


class Busy(Exception):
    """Another process holds the lock."""


class HeldLock:
    def __init__(self, path: Path, handle) -> None:
        self.path = path
        self._handle = handle
        self._inode = os.fstat(handle.fileno()).st_ino

    def remove(self) -> None:
        """Remove the lock file if it is still this lock's (callable from a signal's deadline)."""
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self._inode:
                self.path.unlink()


def _locked_at_path(path: Path, handle) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def held(path: Path) -> Iterator[HeldLock]:
    """The lock of path, for the block; raises Busy at once when another process holds it."""
    while True:
        handle = open(path, "a")  # noqa: SIM115 (held for the block)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise Busy(str(path)) from None
        if _locked_at_path(path, handle):
            break
        handle.close()
    lock = HeldLock(path, handle)
    try:
        yield lock
    finally:
        lock.remove()  # removed while still locked: a waiting process then finds no file, or a new one
        handle.close()
