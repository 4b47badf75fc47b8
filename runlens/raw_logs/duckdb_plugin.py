"""The dbt-duckdb plugin (profiles.yml, `plugins`): the database file, and the raw tables read when
a build connects.

On dbt's connection it attaches the database file, RUNLENS_DB read at that moment, as the catalog
the profile names (runlens/refresh/database.py: so the database is no part of what dbt parses), and, when
the command builds (`dbt build`, `dbt run`), it runs the reader once (duckdb_reader.py) over
RUNLENS_RAW_DIR (default `data/sample`): the raw tables the staging models select from are then
in step with the folder before any model runs. A `--full-refresh` reads every file again. The
raw folder is read when the build runs, not when dbt parses the project: pointing a build at
another folder costs dbt no parsing.

A raw folder, as-of time or collections file that cannot be used stops the build at
stg_build_context, with one line that says what to do, prefixed `runlens: ` as `runlens build`
prints it, on a line of its own in the error dbt shows.
"""

from __future__ import annotations

from dbt.adapters.duckdb.plugins import BasePlugin

from runlens.raw_logs.as_of import AsOfError
from runlens.raw_logs.duckdb_reader import refresh, write_reading_error
from runlens.raw_logs.folder_metadata import MetadataError
from runlens.raw_logs.listing import RawFolderError, raw_dir
from runlens.raw_logs.raw_tables import raw_schema
from runlens.refresh.database import attach_database, attaches_database, use_database

# dbt's commands that run models: they read the raw folder first
BUILDING_COMMANDS = {"build", "run"}


def building_command() -> tuple[bool, bool]:
    """(whether dbt's command runs models, whether it is a full refresh)."""
    try:
        from dbt.flags import get_flags
    except ImportError:
        return False, False
    flags = get_flags()
    which = getattr(flags, "WHICH", None)
    return which in BUILDING_COMMANDS, bool(getattr(flags, "FULL_REFRESH", False))


def read_raw_folder(conn, schema: str, full: bool) -> None:
    """The reading; a folder or metadata file that cannot be used is written into the build
    context, where stg_build_context stops the build with its line (raising here, while dbt opens
    its connection, would leave dbt's connection half made)."""
    try:
        refresh(conn, raw_dir(), raw_schema(schema), full=full)
    except (RawFolderError, AsOfError, MetadataError) as error:
        write_reading_error(conn, raw_dir(), raw_schema(schema), f"\nrunlens: {error}")


class Plugin(BasePlugin):
    def configure_connection(self, conn):
        if not attaches_database(self.creds):  # another program's own connection (the benchmark's floor)
            return
        attach_database(conn)  # dbt's connection: the database file, resolved now
        builds, full = building_command()
        if builds:
            read_raw_folder(conn, self.creds.schema, full)

    def configure_cursor(self, cursor):
        if attaches_database(self.creds):
            use_database(cursor)
