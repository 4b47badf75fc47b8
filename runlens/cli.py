"""The `runlens` command: its parsers and main, one subcommand per job, each a module of
runlens/commands/ with its `add_arguments(parser)` and its `run(args, parser)`.

    runlens build   [--logs DIR] [--db PATH] [-v] [-- DBT BUILD OPTIONS]   runlens/commands/build.py
    runlens report  [--db PATH] [--out DIR] [--collection NAME]            runlens/commands/report.py
    runlens import  PATH... --into RAW_DIR [importer options]              runlens/commands/import_logs.py
    runlens profile PATH... [--into RAW_DIR] [--db PATH] [--reports DIR]   runlens/commands/profile.py
    runlens watch   [--logs DIR] [--db PATH] [--out DIR]                   runlens/commands/watch.py
    runlens marts   [--db PATH]                                            runlens/commands/marts.py

A user mistake is one line on stderr starting `runlens: ` that says what to do, with exit status 2
(1 for `runlens build` over a folder with no runlens logs, as `runlens import` with nothing to
import). The commands a message suggests are those of how runlens runs (runlens/usage.py).
An option name means one thing in every subcommand; an old name kept for a release warns
(runlens/commands/option_aliases.py). Every command and option: docs/commands.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from runlens import __version__
from runlens.commands import build, import_logs, marts, profile, report, watch
from runlens.refresh.build import UsageError
from runlens.refresh.project import ProjectNotFound
from runlens.refresh.stopping import leave_if_stopped

COMMANDS = {
    "build": ("build the marts from the raw logs (crash-safe)", build),
    "report": ("render the Markdown reports from the marts", report),
    "import": ("convert W&B, TensorBoard, MLflow, text or cluster GPU logs into runlens logs", import_logs),
    "profile": ("import, build and report in one go", profile),
    "watch": ("rebuild and re-render as the logs change", watch),
    "marts": ("list the marts with their grain and rows, to start querying", marts),
}


def parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser and each subcommand's."""
    root = argparse.ArgumentParser(prog="runlens", description="Where the wall time of ML training sweeps goes.")
    root.add_argument("--version", action="version", version=f"runlens {__version__}")
    commands = root.add_subparsers(dest="command", metavar="COMMAND", required=True)
    subparsers = {}
    for name, (description, command) in COMMANDS.items():
        subparsers[name] = commands.add_parser(name, help=description, description=description)
        command.add_arguments(subparsers[name])
    return root, subparsers


def main(argv: Sequence[str] | None = None) -> int:
    root, subparsers = parsers()
    args = root.parse_args(argv)
    try:
        status = COMMANDS[args.command][1].run(args, subparsers[args.command])
    except (UsageError, ProjectNotFound) as error:
        print(f"runlens: {error}", file=sys.stderr)
        return getattr(error, "status", 2)
    leave_if_stopped(status)  # Ctrl-C or SIGTERM: no slow teardown of dbt's objects (runlens/refresh/stopping.py)
    return status


if __name__ == "__main__":
    sys.exit(main())
