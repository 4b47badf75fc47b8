"""The DuckDB file a build writes, resolved when dbt connects, not when it parses.

dbt hashes the profile's connection info (dbt-core's ManifestLoader.build_manifest_state_check:
`credentials.connection_info()`, for dbt-duckdb path, database, settings, plugins, attach and the
rest of its `_connection_keys`) into its partial-parse state, and parses the whole project again
when the hash differs ("Unable to do partial parsing because profile has changed"). So the profile
names no file: its `path` is `:memory:` with the catalog `runlens` (a stand-in attachment), and
the plugin (runlens/raw_logs/duckdb_plugin.py) attaches the real file as `runlens` on every
connection dbt opens, from RUNLENS_DB read at that moment, with DuckDB's limits from
RUNLENS_DUCKDB_THREADS and RUNLENS_MEMORY_LIMIT. Building one database, then another, then one
with other limits keeps dbt's parse.
"""

from __future__ import annotations

import os
import threading

DATABASE_VARIABLE = "RUNLENS_DB"
DEFAULT_DATABASE = "runlens.duckdb"
CATALOG = "runlens"  # profiles.yml: `database` and the stand-in attachment's alias
# DuckDB's limits (dbt's `threads` in profiles.yml is how many models run at once): past
# memory_limit DuckDB spills to <db>.tmp instead of growing (docs/benchmarks.md, 1M runs). The
# memory limit is MEMORY_SHARE of the machine's memory unless RUNLENS_MEMORY_LIMIT says otherwise.
MEMORY_SHARE = 1 / 8
MINIMUM_MEMORY_MB = 1024


def machine_memory_limit() -> str:
    """MEMORY_SHARE of the machine's physical memory (at least MINIMUM_MEMORY_MB), as DuckDB takes it."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return f"{MINIMUM_MEMORY_MB * 3}MB"
    return f"{max(MINIMUM_MEMORY_MB, int(total * MEMORY_SHARE) // 2**20)}MB"


LIMITS = {
    "threads": ("RUNLENS_DUCKDB_THREADS", lambda: "2"),
    "memory_limit": ("RUNLENS_MEMORY_LIMIT", machine_memory_limit),
}


# the connections attach_database attached a file to, until close_attached detaches it
_ATTACHED: list = []
_ATTACHED_LOCK = threading.Lock()


def database_path() -> str:
    """The database file: RUNLENS_DB (a relative path from the current folder), else runlens.duckdb."""
    return os.path.abspath(os.environ.get(DATABASE_VARIABLE) or DEFAULT_DATABASE)


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def attaches_database(credentials) -> bool:
    """Whether a connection is dbt's over the profile that names no file (profiles.yml): not one
    that other code opens on a file of its own and gives the plugin's functions (the benchmark's
    fair floor)."""
    return credentials is not None and credentials.path == ":memory:" and credentials.database == CATALOG


def attach_database(conn) -> None:
    """Attach the database file as the catalog dbt writes (and spill beside it), with the limits."""
    path = database_path()
    for setting, (variable, default) in LIMITS.items():
        conn.execute(f"set {setting} = {quoted(os.environ.get(variable) or default())}")
    conn.execute(f"set temp_directory = {quoted(path + '.tmp')}")
    conn.execute(f"attach if not exists {quoted(path)} as {CATALOG}")
    conn.execute(f"use {CATALOG}")
    with _ATTACHED_LOCK:
        _ATTACHED.append(conn)


def close_attached() -> None:
    """Detach the database file from every connection that attached it, so the file is written
    out and closed now (runlens.refresh.dbt_session, after each command), not when the garbage collector
    gets to dbt's connection."""
    with _ATTACHED_LOCK:
        attached = _ATTACHED[:]
        _ATTACHED.clear()
    for conn in attached:
        try:
            conn.execute("use memory")
            conn.execute(f"detach database if exists {CATALOG}")
            conn.close()
        except Exception:  # noqa: BLE001 (a connection closed already has nothing to write)
            pass


def use_database(cursor) -> None:
    """A cursor dbt copies from the connection starts in the in-memory catalog: point it at the file."""
    cursor.execute(f"use {CATALOG}")
