"""Shared fixtures: databases built by the real dbt project over fixture and sample logs.

Builds that tests only read are declared with `@prebuilt()` (tests/support/prebuilt.py): the session starts
those its tests need in the background. Every build runs in one of the session's project copies
(tests/support/pipeline.py, ProjectCopies), in one of its dbt worker processes (tests/support/dbt_workers.py),
which parse a copy once and reuse the parsed project from build to build.

This file holds fixtures and hooks only: what a test imports lives in tests/support/ (CONTRIBUTING.md, "Tests").
"""

from __future__ import annotations

import os
import shutil

import duckdb
import pytest

from tests.support import pipeline
from tests.support.pipeline import DATABASE, FAULTY, PROJECT, SAMPLE, ProjectCopies, build
from tests.support.prebuilt import Built, Prebuilds, needed_by, prebuilt, slowest_last
from tests.support.writer_trainings import writer_training  # noqa: F401  (the writer's recorded trainings, once per session)


def pytest_collection_modifyitems(items):
    """The tests that need the slowest background builds run last: the others run meanwhile."""
    items[:] = slowest_last(items)


@pytest.fixture(scope="session", autouse=True)
def charts_say_what_they_show():
    """Every chart a test draws (every page of every golden dataset among them) is checked before
    it is saved: a tick label that reads as another value than its tick fails the test that drew
    it (tests/support/chart_ticks.py)."""
    from matplotlib.figure import Figure

    from tests.support.chart_ticks import tick_label_mismatches

    savefig = Figure.savefig

    def checked_savefig(figure, *args, **kwargs):
        mismatches = tick_label_mismatches(figure)
        assert not mismatches, "a chart's tick labels are not its tick values: " + "; ".join(mismatches)
        return savefig(figure, *args, **kwargs)

    Figure.savefig = checked_savefig
    yield
    Figure.savefig = savefig


@pytest.fixture(scope="session", autouse=True)
def prebuilds(request, tmp_path_factory):
    """The session's project copies, and the declared builds its tests need, started now; the
    `runlens` commands the tests start keep dbt's cache in the session's scratch folder."""
    os.environ.setdefault("RUNLENS_CACHE_DIR", str(tmp_path_factory.mktemp("runlens_cache")))
    pipeline.COPIES = ProjectCopies(tmp_path_factory.mktemp("projects"))
    builds = Prebuilds(tmp_path_factory)
    builds.start(needed_by(request.session.items))
    yield builds
    builds.stop()
    pipeline.WORKERS.stop()


@prebuilt()
def faulty_build(builds: Prebuilds) -> Built:
    """The marts over a copy of tests/fixtures/faulty with its own collections seed. Besides the
    fixture's own files that are not logs (expected.json, EXPECTED.md, runlens_collections.csv) the folder
    holds notes.txt: none of them may show up anywhere."""
    root = builds.mktemp("faulty")
    raw = root / "raw"
    shutil.copytree(FAULTY, raw)
    (raw / "notes.txt").write_text("not a log\n")
    build(PROJECT, raw, root / "db" / DATABASE)
    return Built(raw, root / "db" / DATABASE)


@pytest.fixture(scope="session")
def faulty_db_path(faulty_build):
    """The faulty fixture's database."""
    return faulty_build.database


@pytest.fixture(scope="session")
def faulty_db(faulty_db_path):
    """A read-only connection to the faulty fixture's marts."""
    connection = duckdb.connect(str(faulty_db_path), read_only=True)
    yield connection
    connection.close()


@prebuilt()
def sample_build(builds: Prebuilds) -> Built:
    """The marts built over the bundled sample with the project's own seed."""
    database = builds.mktemp("sample") / DATABASE
    build(PROJECT, SAMPLE, database)
    return Built(SAMPLE, database)


@pytest.fixture(scope="session")
def sample_db(sample_build):
    """A read-only connection to the sample's marts."""
    connection = duckdb.connect(str(sample_build.database), read_only=True)
    yield connection
    connection.close()
