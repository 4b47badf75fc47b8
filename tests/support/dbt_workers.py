"""A few long-lived processes that run dbt in-process for the tests (runlens.refresh.dbt_session).

dbt is not made for two commands at once in one process (its flags, its adapter registry and
dbt-duckdb's connection are process-wide), and the test session runs up to RUNLENS_TEST_BUILDS
builds at once in threads (tests/support/prebuilt.py). So each build goes to one of that many worker
processes, each holding a DbtSession per project copy it has built (the most recent few): a
build pays for its nodes, not for dbt's start-up and parse. A build goes to an idle worker that
already holds its project when there is one. A worker that dies (killed, out of memory) fails
the build it ran and is replaced.

A Job marked `planned` is a build as `runlens build` runs it (runlens.refresh.dbt_build): the plan dbt
recorded for the same situation, run again in one DuckDB connection, else dbt recording one in
the session's cache root (keyed by the project's content: every copy of a kind shares them). The
tests that need only the marts build that way; dbt's own
node-by-node build keeps its tests (tests/pipeline/test_plans.py builds every fixture both ways).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

SESSIONS_PER_WORKER = 4


@dataclass(frozen=True)
class Job:
    project: str
    args: tuple[str, ...]
    env: dict[str, str]
    planned: bool = False  # runlens.refresh.dbt_build's plan when it has one (the module's docstring)


@dataclass(frozen=True)
class Done:
    returncode: int
    output: str
    events: tuple[str, ...]
    parsed: str | None
    replayed: bool = False  # a planned job whose plan ran (runlens.refresh.dbt_build)


def serve(connection) -> None:
    """The worker's loop: run each Job it is sent, answer with Done, until it is sent None."""
    from runlens.refresh.dbt_session import DbtSession

    sessions: OrderedDict[str, DbtSession] = OrderedDict()
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):  # the test session is gone
            break
        if job is None:
            break
        session = sessions.pop(job.project, None) or DbtSession(Path(job.project), work=Path(job.project))
        sessions[job.project] = session
        while len(sessions) > SESSIONS_PER_WORKER:
            sessions.popitem(last=False)[1].close()
        unset = {name: None for name in os.environ if name not in job.env}
        try:
            invocation = run_job(session, job, {**unset, **job.env})
            output = invocation.output
            if invocation.exception:
                output += invocation.exception + "\n"
            done = Done(invocation.returncode, output, tuple(invocation.events), invocation.parsed, invocation.replayed)
        except Exception as error:  # noqa: BLE001 (the test that asked sees it)
            done = Done(2, f"the dbt worker failed: {error!r}\n", (), None)
        try:
            connection.send(done)
        except (BrokenPipeError, OSError):
            break
    for session in sessions.values():
        session.close()


def run_job(session, job: Job, env: dict[str, str | None]):
    """The job's dbt command in session: a planned build through runlens.refresh.dbt_build."""
    if not job.planned:
        return session.invoke(list(job.args), env=env)
    from runlens.refresh import dbt_build

    raw, database = Path(job.env["RUNLENS_RAW_DIR"]), Path(job.env["RUNLENS_DB"])
    return dbt_build.build(session, raw, database, list(job.args), env)


class Worker:
    def __init__(self, context) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child,), daemon=True, name="dbt-worker")
        self.process.start()
        child.close()
        self.projects: list[str] = []

    def run(self, job: Job) -> Done:
        try:
            self.connection.send(job)
            done = self.connection.recv()
        except (EOFError, OSError, BrokenPipeError) as error:
            raise WorkerDied(
                f"the dbt worker (pid {self.process.pid}) died running {list(job.args)}: {error!r}"
            ) from error
        if job.project in self.projects:
            self.projects.remove(job.project)
        self.projects = [*self.projects, job.project][-SESSIONS_PER_WORKER:]
        return done

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.kill()


class WorkerDied(RuntimeError):
    pass


def log_build(job: Job, done: Done, seconds: float) -> None:
    """With RUNLENS_TEST_BUILD_LOG set, one JSON line per dbt command a worker ran (its test, its
    arguments, its seconds, whether it parsed the project first): where the suite's time goes."""
    path = os.environ.get("RUNLENS_TEST_BUILD_LOG")
    if not path:
        return
    record = {
        "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
        "args": list(job.args),
        "seconds": round(seconds, 3),
        "returncode": done.returncode,
        "parsed": done.parsed,
        "planned": job.planned,
        "replayed": done.replayed,
    }
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")


class WorkerPool:
    """At most `size` workers, started when first needed; run() blocks until one is free."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self.context = multiprocessing.get_context("spawn")
        self.idle: list[Worker] = []
        self.started = 0
        self.condition = threading.Condition()

    def _checkout(self, project: str) -> Worker:
        with self.condition:
            while True:
                for worker in self.idle:
                    if project in worker.projects:
                        self.idle.remove(worker)
                        return worker
                if self.idle:
                    return self.idle.pop()
                if self.started < self.size:
                    self.started += 1
                    break
                self.condition.wait()
        return Worker(self.context)

    def _checkin(self, worker: Worker | None) -> None:
        with self.condition:
            if worker is None:
                self.started -= 1
            else:
                self.idle.append(worker)
            self.condition.notify()

    def run(self, job: Job) -> Done:
        worker = self._checkout(job.project)
        started = time.perf_counter()
        try:
            done = worker.run(job)
        except WorkerDied:
            worker.stop()
            self._checkin(None)
            raise
        self._checkin(worker)
        log_build(job, done, time.perf_counter() - started)
        return done

    def stop(self) -> None:
        with self.condition:
            workers, self.idle = self.idle, []
        for worker in workers:
            worker.stop()
