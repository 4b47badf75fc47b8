"""Builds that tests only read, started in the background as soon as the session knows it needs them.

A function declared `@prebuilt()` becomes a session fixture of its name whose value is what the
function returns; it is given the session's Prebuilds, for scratch folders (`mktemp`) and the
results of other builds (`result`). When the session starts, every prebuilt build
that a collected test needs, itself or through its fixtures, starts in the background, at most
RUNLENS_TEST_BUILDS (default 2) at once, in the order the tests need them, those declared
first=True (the slowest) before the others. A test whose build is still running waits for it; a
build no worker has started yet runs in the test that asks for it, so `-k` or a single test file
builds only what it needs. A build that raised raises again in every test that needs it. The tests
that need a first=True build run last (tests/conftest.py), so that the others run meanwhile.

Most of a small `dbt build` is dbt starting up and walking the graph one node after another, in
one process that keeps about one core busy: two builds at once take little longer than one.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

WORKERS = int(os.environ.get("RUNLENS_TEST_BUILDS", "2"))


@dataclass(frozen=True)
class Declared:
    function: Callable[[Prebuilds], Any]
    first: bool


DECLARED: dict[str, Declared] = {}


@dataclass(frozen=True)
class Built:
    """A database of the marts and the raw folder it was built from: what a build of logs returns."""

    raw: Path
    database: Path


def prebuilt(first: bool = False):
    """Declare a build that runs in the background; the session fixture of the function's name
    gives its return value."""

    def declare(function: Callable[[Prebuilds], Any]):
        name = function.__name__
        DECLARED[name] = Declared(function, first)

        def fixture(prebuilds: Prebuilds):
            return prebuilds.result(name)

        fixture.__doc__ = function.__doc__
        return pytest.fixture(scope="session", name=name)(fixture)

    return declare


@dataclass
class Run:
    """One declared build in this session: run at most once, by whichever thread claims it."""

    declared: Declared
    claim: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None

    def run(self, builds: Prebuilds) -> None:
        if not self.claim.acquire(blocking=False):
            return  # another thread runs it
        try:
            self.value = self.declared.function(builds)
        except BaseException as error:  # a failed assertion or a skip: for the tests that need it
            self.error = error
        finally:
            self.done.set()

    def result(self, builds: Prebuilds) -> Any:
        self.run(builds)
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class Prebuilds:
    """The session's declared builds and the background workers that run them."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.runs = {name: Run(declared) for name, declared in DECLARED.items()}
        self.pending: queue.SimpleQueue[Run] = queue.SimpleQueue()
        self.stopping = threading.Event()
        self.workers: list[threading.Thread] = []

    def start(self, needed: Iterable[str]) -> None:
        """Start the builds named in `needed` (in that order, the first=True ones before all)."""
        names = [name for name in dict.fromkeys(needed) if name in self.runs]
        names.sort(key=lambda name: not self.runs[name].declared.first)
        for name in names:
            self.pending.put(self.runs[name])
        for number in range(min(WORKERS, len(names))):
            worker = threading.Thread(target=self.work, name=f"prebuild-{number}", daemon=True)
            worker.start()
            self.workers.append(worker)

    def work(self) -> None:
        while not self.stopping.is_set():
            try:
                run = self.pending.get_nowait()
            except queue.Empty:
                return
            run.run(self)

    def result(self, name: str) -> Any:
        """What the declared build returned (run here and now if nothing has started it)."""
        return self.runs[name].result(self)

    def mktemp(self, name: str) -> Path:
        """A new scratch folder (pytest's tmp_path_factory)."""
        return self.factory.mktemp(name)

    def settle(self) -> None:
        """Wait until the workers have run every build started (for tests that time themselves)."""
        for worker in self.workers:
            worker.join()

    def stop(self) -> None:
        """Start nothing more; wait for the builds that are running."""
        self.stopping.set()
        self.settle()


def needed_by(items: Iterable[pytest.Item]) -> list[str]:
    """The declared builds the items need, in the order the items come."""
    return [name for item in items for name in getattr(item, "fixturenames", ()) if name in DECLARED]


def slowest_last(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items in their order, those that need a build declared first=True (the slowest) last."""
    slowest = {name for name, declared in DECLARED.items() if declared.first}

    def waits(item: pytest.Item) -> bool:
        return any(name in slowest for name in getattr(item, "fixturenames", ()))

    return [item for item in items if not waits(item)] + [item for item in items if waits(item)]
