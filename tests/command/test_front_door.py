"""The README stays a front door and the docs stay true: the README is about 150 lines with the two
commands, every `runlens` subcommand and a reading order; the tests' layout is only in
CONTRIBUTING.md; no doc names an issue by number; every link of the README and the docs leads to a
file (and heading) that exists; docs/commands.md documents every option every subcommand has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runlens import cli
from runlens.commands.option_aliases import DeprecatedAlias

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
COMMANDS_DOC = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
DOCS = [
    REPO / "README.md",
    REPO / "CONTRIBUTING.md",
    REPO / "reports" / "README.md",
    REPO / "writer" / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
]


def code_blocks(markdown: str) -> list[str]:
    return re.findall(r"```\w*\n(.*?)```", markdown, flags=re.DOTALL)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readme_is_a_front_door_of_about_150_lines():
    assert len(README.splitlines()) <= 170
    headings = re.findall(r"^## (.+)$", README, re.M)
    for heading in ("The two commands", "Where the pages land", "Point it at your own logs", "Query the marts"):
        assert heading in headings
    assert headings[-1] == "Reading order"
    order = README.split("## Reading order", 1)[1]
    places = [order.index(name) for name in ("README", "CONTRIBUTING.md", "models/README.md", "docs/")]
    assert places == sorted(places)


def test_the_readme_gives_the_two_commands_the_benchmark_and_every_subcommand():
    blocks = "\n".join(code_blocks(README))
    assert re.search(r"^make sample\b", blocks, re.M) and re.search(r"^make test\b", blocks, re.M)
    assert "scripts/bench.py" in blocks
    for name in cli.COMMANDS:
        assert re.search(rf"^runlens {name}\b", blocks, re.M), f"the README's command block has no `runlens {name}`"


def test_the_tests_layout_is_only_in_contributing():
    for path in DOCS:
        if path.name == "CONTRIBUTING.md":
            continue
        text = path.read_text(encoding="utf-8")
        for kind in ("pipeline", "report", "importers", "writer", "engines", "command", "support", "golden"):
            assert f"tests/{kind}/`" not in text and f"`{kind}/` (" not in text, (path.name, kind)
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for kind in ("pipeline/", "report/", "importers/", "writer/", "engines/", "command/", "support/"):
        assert f"- `{kind}`" in contributing


@pytest.mark.parametrize("path", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_no_doc_names_an_issue_by_number(path):
    assert not re.findall(r"\bissues? \d+", path.read_text(encoding="utf-8"), re.I)


@pytest.mark.parametrize("path", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_link_leads_to_a_file_and_heading_that_exist(path):
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"\w+://", target) or target.startswith("mailto:"):
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        assert linked.exists(), f"{path.name} links to {target}, which does not exist"
        if fragment and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            assert fragment in {anchor(heading) for heading in headings}, f"{path.name}: no heading #{fragment}"


def section(name: str) -> str:
    return COMMANDS_DOC.split(f"\n## runlens {name}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_the_command_reference_documents_every_option(name):
    """Each option in its command's section; `profile` takes every option of `import` (said once); a
    deprecated alias is in the table of old names, with its new one."""
    _root, subparsers = cli.parsers()
    imported = {option for action in subparsers["import"]._actions for option in action.option_strings}
    for action in subparsers[name]._actions:
        for option in action.option_strings:
            if isinstance(action, DeprecatedAlias):
                old = rf"`runlens {name} {option} [A-Z_]+`"
                assert re.search(rf"{old}[^\n]*\| `{action.new_name} [A-Z_]+`", COMMANDS_DOC), (name, option)
                continue
            if option in ("-h", "--help") or (name == "profile" and option in imported and option != "--into"):
                continue
            assert f"`{option}" in section(name), f"docs/commands.md, runlens {name}: no {option}"


def test_one_meaning_per_option_name():
    """An option name that several commands take means one thing: one definition they share (`profile`
    takes `import`'s options), or one row of the overview table that names every command taking it.
    So a name that meant one thing in one command and another elsewhere (`--out`, `--collection`)
    became two names. Deprecated aliases are left out: each says on stderr which name to use."""
    _root, subparsers = cli.parsers()
    takers: dict[str, dict[str, str]] = {}  # option: {command: its help}
    for name, parser in subparsers.items():
        for action in parser._actions:
            if not isinstance(action, DeprecatedAlias):
                for option in action.option_strings:
                    takers.setdefault(option, {})[name] = action.help
    overview = COMMANDS_DOC.split("One name, one meaning", 1)[1].split("\n\n", 2)[1]
    rows: dict[str, set[str]] = {}
    per_command = re.compile(rf"(^|; )({'|'.join(cli.COMMANDS)})(, ({'|'.join(cli.COMMANDS)}))*: ")
    for line in overview.splitlines()[2:]:
        names, means, commands = line.strip("|").split(" | ")
        assert not per_command.search(means.strip()), f"docs/commands.md: {names.strip()} means one thing per command"
        for option in re.findall(r"`(-{1,2}[a-z-]+)", names):
            assert option not in rows, f"docs/commands.md: {option} has two rows, two meanings"
            rows[option] = set(commands.strip().split(", "))
    for option, helps in takers.items():
        if len(helps) > 1 and option not in ("-h", "--help") and len(set(helps.values())) > 1:
            assert rows.get(option) == set(helps), (option, sorted(helps), rows.get(option))
