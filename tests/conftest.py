"""Shared fixtures: databases built by the real dbt project over fixture and sample logs."""

from __future__ import annotations

import duckdb
import pytest
from pipeline import REPO, build, copy_project
from writer_trainings import writer_training  # noqa: F401  (the writer's recorded trainings, once per session)

FAULTY = REPO / "tests" / "fixtures" / "faulty"
SAMPLE = REPO / "data" / "sample"


@pytest.fixture(scope="session")
def faulty_db_path(tmp_path_factory):
    """A database of the marts built over tests/fixtures/faulty with its own collections seed."""
    project = copy_project(tmp_path_factory.mktemp("faulty_project"), FAULTY / "collections.csv")
    database = project / "faulty.duckdb"
    build(project, FAULTY, database)
    return database


@pytest.fixture(scope="session")
def faulty_db(faulty_db_path):
    """A read-only connection to the faulty fixture's marts."""
    connection = duckdb.connect(str(faulty_db_path), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory):
    """The marts built over the bundled sample with the project's own seed."""
    project = copy_project(tmp_path_factory.mktemp("sample_project"))
    database = project / "sample.duckdb"
    build(project, SAMPLE, database)
    connection = duckdb.connect(str(database), read_only=True)
    yield connection
    connection.close()
