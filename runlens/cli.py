"""The `runlens` command: one subcommand per job, each in its own module.

    runlens build   [--logs DIR] [--db PATH] [-v] [-- DBT BUILD OPTIONS]   runlens/refresh/build.py
    runlens report  [--db PATH] [--out DIR] [--collection NAME]            runlens/commands/report.py
    runlens import  PATH... --into RAW_DIR [importer options]              runlens/commands/import_logs.py
    runlens profile PATH... [--into RAW_DIR] [--db PATH] [--reports DIR]   runlens/commands/profile.py
    runlens watch   [--logs DIR] [--db PATH] [--out DIR]                   runlens/refresh/watch.py
    runlens marts   [--db PATH]                                            runlens/commands/marts.py

A user mistake is one line on stderr starting `runlens: ` that says what to do, with exit status 2
(1 for `runlens build` over a folder with no runlens logs, as `runlens import` with nothing to
import). The commands a message suggests are those of how runlens runs (runlens/commands/usage.py). An
option name means one thing in every subcommand; an old name kept for a release warns
(runlens/commands/option_aliases.py). Every command and option: docs/commands.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from runlens import __version__
from runlens.commands import import_logs as importing
from runlens.commands import marts, profile
from runlens.commands import report as reporting
from runlens.refresh import build as building
from runlens.refresh import watch
from runlens.refresh.dbt_session import DbtSession
from runlens.refresh.project import ProjectNotFound
from runlens.refresh.stopping import Stopping, leave_if_stopped


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--logs", type=Path, help="the raw log folder (default: $RUNLENS_RAW_DIR, else the sample)")
    parser.add_argument("--db", type=Path, help="the database (default: $RUNLENS_DB, else runlens.duckdb)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show dbt's log (else it goes to a file)")
    parser.add_argument(
        "--timings", type=Path, metavar="FILE", help="write dbt's elapsed time and each node's seconds (JSON)"
    )
    parser.add_argument("dbt_args", nargs="*", metavar="-- DBT BUILD OPTIONS", help="passed to dbt build")


def run_build(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    building.check_buildable(args.logs, args.db)  # before dbt: a folder with nothing to build costs no build
    database = building.database_path(args.db)
    command = "runlens report" + (f" --db {database}" if args.db else "")
    stopped = f"runlens: stopped; {database} holds the last build that finished"
    with Stopping(lambda: stopped).installed() as stopping, DbtSession(verbose=args.verbose) as session:
        try:
            outcome = building.build(
                args.logs,
                args.db,
                args.dbt_args,
                session=session,
                reports=f"not written yet: {command}",
                timings=args.timings,
            )
        except KeyboardInterrupt:
            return stopping.end()
    return outcome.returncode


COMMANDS = {
    "build": ("build the marts from the raw logs (crash-safe)", add_build_arguments, run_build),
    "report": ("render the Markdown reports from the marts", reporting.add_arguments, reporting.run),
    "import": (
        "convert W&B, TensorBoard, MLflow, text or cluster GPU logs into runlens logs",
        importing.add_arguments,
        importing.run,
    ),
    "profile": ("import, build and report in one go", profile.add_arguments, profile.run),
    "watch": ("rebuild and re-render as the logs change", watch.add_arguments, watch.run),
    "marts": ("list the marts with their grain and rows, to start querying", marts.add_arguments, marts.run),
}


def parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser and each subcommand's."""
    root = argparse.ArgumentParser(prog="runlens", description="Where the wall time of ML training sweeps goes.")
    root.add_argument("--version", action="version", version=f"runlens {__version__}")
    commands = root.add_subparsers(dest="command", metavar="COMMAND", required=True)
    subparsers = {}
    for name, (description, add_arguments, _run) in COMMANDS.items():
        subparsers[name] = commands.add_parser(name, help=description, description=description)
        add_arguments(subparsers[name])
    return root, subparsers


def main(argv: Sequence[str] | None = None) -> int:
    root, subparsers = parsers()
    args = root.parse_args(argv)
    try:
        status = COMMANDS[args.command][2](args, subparsers[args.command])
    except (building.UsageError, ProjectNotFound) as error:
        print(f"runlens: {error}", file=sys.stderr)
        return getattr(error, "status", 2)
    leave_if_stopped(status)  # Ctrl-C or SIGTERM: no slow teardown of dbt's objects (runlens/refresh/stopping.py)
    return status


if __name__ == "__main__":
    sys.exit(main())
