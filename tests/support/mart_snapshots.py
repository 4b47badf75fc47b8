"""What the tests of a refresh share: a copy of the faulty fixture's build to refresh, a file change
even a coarse clock sees, and the compared marts' rows to hold against another build's."""

from __future__ import annotations

import os
import shutil

import duckdb

from runlens.mart_catalog import compared_mart_names, compared_query
from tests.support.pipeline import copy_database, rounded

# every mart two builds of the same logs must agree on; agg_file_data_quality apart (modified_at)
COMPARED = [mart for mart in compared_mart_names() if mart != "agg_file_data_quality"]


def snapshot(database) -> dict[str, list]:
    with duckdb.connect(str(database), read_only=True) as connection:
        tables = {table: rounded(connection.sql(compared_query(table)).fetchall()) for table in COMPARED}
        tables["agg_file_data_quality"] = connection.sql(
            "select * exclude (modified_at) from agg_file_data_quality order by all"
        ).fetchall()
    return tables


def bump_mtime(path):
    """Make sure a rewrite is seen even on a file system with coarse timestamps."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def copy_of_faulty_build(faulty_build, folder):
    """The faulty fixture's folder and database, copied: file copies keep their size and
    modification time, so to the copied database the copied folder is the one it was built from."""
    raw = folder / "raw"
    shutil.copytree(faulty_build.raw, raw)
    return raw, copy_database(faulty_build.database, folder / "incremental")
