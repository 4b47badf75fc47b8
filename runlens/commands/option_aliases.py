"""Options kept under an old name for one release: the old spelling still works, and says on stderr,
in one line, which name to use instead.

    runlens import PATH... --out RAW_DIR            now  --into RAW_DIR
    runlens profile PATH... --out RAW_DIR           now  --into RAW_DIR
    runlens import PATH... --collection NAME        now  --into-collection NAME
    runlens profile PATH... --collection NAME       now  --into-collection NAME

(`--out` is the pages' folder of `runlens report` and `runlens watch`, `--collection` the collection
`runlens report` renders; docs/commands.md lists the aliases and when they go.)
"""

from __future__ import annotations

import argparse
import sys


class DeprecatedAlias(argparse.Action):
    """An old option name for another option's dest: stores its value as the new name would and
    prints `runlens: <old> is deprecated here: use <new> (<why>)` on stderr each time it is given."""

    def __init__(self, option_strings, dest, new_name: str, why: str, **kwargs):
        self.new_name, self.why = new_name, why
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"runlens: {option_string} is deprecated here: use {self.new_name} ({self.why})", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_deprecated_alias(parser: argparse.ArgumentParser, old: str, new: str, dest: str, why: str, **kwargs) -> None:
    """Add old as a deprecated spelling of the option new, whose value goes to dest (new's default
    stays: the alias sets none). kwargs: new's type and metavar."""
    parser.add_argument(
        old,
        dest=dest,
        default=argparse.SUPPRESS,
        action=DeprecatedAlias,
        new_name=new,
        why=why,
        help=f"old name of {new}, going in the next release",
        **kwargs,
    )
