"""`runlens import`: convert existing training logs into runlens event logs, with no change to the
training code.

    runlens import PATH... --into RAW_DIR [--format auto|wandb|mlflow|tensorboard|text|nvidia_smi|dcgm] [options]

What it reads and writes, the importer extra it needs and its exit status: docs/importers.md,
"`runlens import` as a whole"; each importer's mapping, field by field, is in the same page.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from runlens.commands.option_aliases import add_deprecated_alias
from runlens.importers.common import Options
from runlens.importers.inputs import InputError, NothingToImport, check_inputs, nothing_to_import
from runlens.importers.progress import Progress
from runlens.importers.registry import FORMATS
from runlens.importers.runner import discover, run_import
from runlens.importers.scalars import DEFAULT_EVAL_PATTERN
from runlens.importers.text_log import DEFAULT_PATTERNS, parse_timezone


def add_import_options(parser: argparse.ArgumentParser) -> None:
    """What to read and how (shared by `runlens import` and `runlens profile`)."""
    parser.add_argument("--format", choices=FORMATS, default="auto", help="what to read (default: %(default)s)")
    parser.add_argument(
        "--into-collection",
        metavar="NAME",
        help="the collection every imported run goes in (default: MLflow experiment name; W&B project, and group "
        "or sweep; for TensorBoard and text logs the PATH's folder name)",
    )
    add_deprecated_alias(
        parser,
        "--collection",
        "--into-collection",
        dest="into_collection",
        why="the collection the imported runs go in; --collection is the collection `runlens report` renders",
        metavar="NAME",
    )
    parser.add_argument("--task", help="task of every imported run")
    parser.add_argument(
        "--task-key",
        default="task",
        help="MLflow tag or param (TensorBoard: hparam; W&B: config key, else the job type, else the "
        "run name) naming the task (default: %(default)s)",
    )
    parser.add_argument(
        "--epoch-metric",
        help="the scalar that counts epochs (default: the framework's own: "
        "'epoch', or 'train/epoch' in the HF Trainer's TensorBoard logs)",
    )
    parser.add_argument(
        "--eval-metric",
        default=DEFAULT_EVAL_PATTERN,
        metavar="REGEX",
        help="scalars that are evaluations, for checkpoints without files (default: %(default)s)",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        metavar="STEPS",
        help="save interval in steps, for checkpoints taken from evaluations when no checkpoint "
        "file exists (default: the HF Trainer's save_steps, else every evaluation; 0: none)",
    )
    parser.add_argument(
        "--timezone",
        help="text logs: the zone of their local times (IANA name or +HH:MM); "
        "without it they are read as UTC and flagged",
    )
    parser.add_argument(
        "--text-pattern",
        action="append",
        default=[],
        metavar="NAME=REGEX",
        help=f"text logs: replace a line pattern ({', '.join(DEFAULT_PATTERNS)})",
    )
    parser.add_argument(
        "--samples-run",
        metavar="RUN_ID",
        help="cluster GPU logs (nvidia-smi CSV, DCGM dumps): the run their samples belong to "
        "(default: the run whose folder holds the log, else the one whose time window holds its samples)",
    )
    parser.add_argument("--quiet", action="store_true", help="only the summary line")
    parser.add_argument("--dry-run", action="store_true", help="list the sources found, write nothing")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`runlens import`'s arguments."""
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="folders or files to import")
    parser.add_argument(
        "--into",
        type=Path,
        metavar="RAW_DIR",
        help="the folder the imported JSONL files go to (needed unless --dry-run)",
    )
    add_into_alias(parser)
    add_import_options(parser)


def add_into_alias(parser: argparse.ArgumentParser) -> None:
    """`--out`, the old name of --into, kept for one release (runlens/commands/option_aliases.py)."""
    add_deprecated_alias(
        parser,
        "--out",
        "--into",
        dest="into",
        why="the folder the imported logs go to; --out is the pages' folder of `runlens report` and `runlens watch`",
        type=Path,
        metavar="RAW_DIR",
    )


def options_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Options:
    text_patterns = {}
    for item in args.text_pattern:
        name, sep, regex = item.partition("=")
        if not sep or name not in DEFAULT_PATTERNS:
            parser.error(f"--text-pattern {item!r}: expected NAME=REGEX with NAME one of {', '.join(DEFAULT_PATTERNS)}")
        try:
            re.compile(regex)
        except re.error as error:
            parser.error(f"--text-pattern {name}: {error}")
        text_patterns[name] = regex
    try:
        parse_timezone(args.timezone)
        eval_pattern = re.compile(args.eval_metric)
    except (ValueError, re.error) as error:
        parser.error(str(error))
    if args.checkpoint_every is not None and args.checkpoint_every < 0:
        parser.error("--checkpoint-every must be 0 or more")
    return Options(
        collection=args.into_collection,
        task=args.task,
        task_key=args.task_key,
        epoch_metric=args.epoch_metric,
        eval_pattern=eval_pattern,
        checkpoint_every=args.checkpoint_every,
        timezone=args.timezone,
        text_patterns=text_patterns,
        samples_run=args.samples_run,
    )


def dry_run(paths: list[Path], fmt: str, options: Options) -> int:
    """List the sources found below paths (stdout), write nothing."""
    plan = discover(paths, fmt, options)
    if not plan.sources:
        print(f"runlens: {nothing_to_import(paths, fmt, plan.notes)}", file=sys.stderr)
        return 1
    for source in plan.sources:
        print(f"{source.kind}\t{source.path}")
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def import_logs(paths: list[Path], out: Path, fmt: str, options: Options, quiet: bool = False) -> int:
    """Import every source below paths into out; the exit status (0: runs, rejects or traces written)."""
    try:
        outcome, line = run_import(paths, out, fmt, options, Progress(0, quiet=quiet))
    except NothingToImport as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    print(line, file=sys.stderr)
    return 0 if outcome.runs or outcome.rejects or outcome.sample_logs or outcome.traces else 1


def checked(args: argparse.Namespace, into: Path | None) -> int | None:
    """2 (said in one line) when a PATH or the folder into cannot be used, else None."""
    try:
        check_inputs(args.paths, into)
    except InputError as error:
        print(f"runlens: {error}", file=sys.stderr)
        return 2
    return None


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`runlens import`."""
    options = options_from(args, parser)
    if args.into is None and not args.dry_run:
        parser.error("--into RAW_DIR is needed (the folder the imported JSONL files go to), unless --dry-run")
    failed = checked(args, args.into)
    if failed is not None:
        return failed
    if args.dry_run:
        return dry_run(args.paths, args.format, options)
    return import_logs(args.paths, args.into, args.format, options, args.quiet)
