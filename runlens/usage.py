"""How the user runs runlens, for the messages that say what to run next.

Installed (`pip install .`, a wheel), runlens is the `runlens` command and nothing else: no Makefile
and no dbt project in the user's folder. A message names `make` only when the command runs in a
source checkout of runlens: the current folder is the repository the package was loaded from (an
editable install, the tests), holding its Makefile, .git and dbt project. Anywhere else, even with
an editable install, `make` would find no Makefile there, so the message gives `runlens` commands.
An environment variable (RUNLENS_RAW_DIR, RUNLENS_DB) is named only when the user set it; else the
command's own option (--logs, --db) is.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from runlens.refresh.database import DATABASE_VARIABLE, DEFAULT_DATABASE
from runlens.refresh.project import PACKAGE, from_checkout

RAW_DIR_VARIABLE = "RUNLENS_RAW_DIR"
LOGS_OPTION = "--logs"
CHECKOUT = PACKAGE.parent  # the repository root, in a source checkout
CHECKOUT_FILES = ("Makefile", ".git", "dbt_project.yml")
FOLDER = "<folder>"  # what the user fills in
MAKE_TARGETS = {"importers": ".venv/.installed-importers"}  # the Makefile's target that installs an extra


def in_checkout() -> bool:
    """Whether the command runs in the source checkout runlens was loaded from, where `make` works."""
    if not all((CHECKOUT / name).exists() for name in CHECKOUT_FILES):
        return False
    try:
        return Path.cwd().resolve() == CHECKOUT
    except OSError:  # the current folder was removed
        return False


def raw_dir_option(logs: str | Path | None) -> str:
    """How the user chose the raw folder: `--logs`, or RUNLENS_RAW_DIR when they set it and gave
    no --logs (the bundled sample, chosen by neither, is changed with --logs)."""
    return RAW_DIR_VARIABLE if not logs and os.environ.get(RAW_DIR_VARIABLE) else LOGS_OPTION


def _here(path: str | Path) -> Path:
    try:
        return Path(os.path.abspath(Path(path).expanduser()))
    except OSError:
        return Path(path)


def named_by_variable(database: Path) -> bool:
    """Whether database is the one the user's RUNLENS_DB names."""
    named = os.environ.get(DATABASE_VARIABLE)
    return bool(named) and _here(named) == _here(database)


def db_option(database: Path) -> str:
    """` --db PATH` for a runlens command to reach database; '' when it reaches it without (the
    default runlens.duckdb here, or the user's RUNLENS_DB)."""
    if named_by_variable(database) or _here(DEFAULT_DATABASE) == _here(database):
        return ""
    return f" --db {database}"


def build_command(database: Path, logs: str = FOLDER) -> str:
    """The `runlens build` command that builds database from a folder of logs."""
    return f"runlens build --logs {logs}{db_option(database)}"


def database_folder_missing(database: Path) -> str:
    """The line for a database whose folder does not exist."""
    if named_by_variable(database):
        return (
            f"the folder of the database {database} ({DATABASE_VARIABLE}) does not exist: create it, "
            f"or set {DATABASE_VARIABLE} to a path in a folder that exists"
        )
    return (
        f"the folder of the database {database} does not exist: create it, or give --db a path in a folder that exists"
    )


def no_database(database: Path) -> str:
    """The line for a command that reads a database that is not there."""
    db = db_option(database)
    if named_by_variable(database):
        where, other = f"{database} ({DATABASE_VARIABLE})", f"set {DATABASE_VARIABLE} to another"
    else:
        where, other = str(database), "pass another --db" if db else "pass --db"
    if in_checkout() and not db:
        todo = f"run `make sample` (or `{build_command(database)}`) first"
    else:
        sample = "" if db else " (`runlens build` alone: the bundled sample)"
        todo = f"build it first: `{build_command(database)}`{sample}"
    return f"no database at {where}: {todo}, or {other}"


def no_marts(database: Path, missing: str = "") -> str:
    """The line for a database that runlens did not build."""
    detail = f" ({missing} missing)" if missing else ""
    return f"{database} has no runlens marts{detail}: build them first: `{build_command(database)}`"


def index_commands(database: Path, out: Path) -> list[str]:
    """The commands an index without runs gives, to build the marts from the user's logs and
    render the pages again."""
    db = db_option(database)
    if in_checkout():
        variables = f"{RAW_DIR_VARIABLE}={FOLDER}" + (f" {DATABASE_VARIABLE}={database}" if db else "")
        return [f"{variables} make sample"]
    shown_out = "" if _here("reports") == _here(out) else f" --out {out}"
    return [build_command(database), f"runlens report{db}{shown_out}"]


def install_command(extra: str | None = None) -> str:
    """The command, in backticks, that installs runlens (with an extra) where it runs. From a
    source checkout: the checkout itself, editable, with the interpreter runlens runs in (`pip`
    alone may be another Python's when the venv is not activated), run in the checkout (or the
    Makefile's target that installs the extra, in the checkout); `pip install 'runlens[extra]'`
    there would ask the package index for runlens instead. Installed from a wheel: the package, by
    its name."""
    if not from_checkout():
        return f"`pip install 'runlens[{extra}]'`" if extra else "`pip install --force-reinstall runlens`"
    python = Path(sys.executable)
    if python.is_relative_to(CHECKOUT):  # the checkout's .venv
        python = python.relative_to(CHECKOUT)
    target = f".[{extra}]" if extra else "."
    command = f"{python} -m pip install -e '{target}'"
    make = f" (or `make {MAKE_TARGETS[extra]}`)" if extra in MAKE_TARGETS else ""
    if in_checkout():
        return f"`{command}`{make}"
    return f"`cd {CHECKOUT} && {command}`"


def importer_extra() -> str:
    """How to install the packages the TensorBoard and W&B importers need."""
    return install_command("importers")
