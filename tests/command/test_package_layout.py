"""The package reads as its architecture: the commands (runlens/commands/, dispatched by runlens/cli.py)
sit on top of the packages that do the work (refresh, raw_logs, importers, report) and of the modules
they all share (plural.py, mart_catalog.py, usage.py); nothing below the commands imports them, so the
refresh, the report or an importer never depends on a command line. And no module has a package of
its own name beside it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "runlens"
COMMANDS = "runlens.commands"


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def imported(source: str, package: str) -> set[str]:
    """Every module (and name) source imports, function-local imports too, relative ones resolved
    from package (the dotted package the source is a module of)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module) if part)
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).parent.parts)


def test_nothing_below_the_commands_imports_them():
    above = {PACKAGE / "cli.py", *(PACKAGE / "commands").rglob("*.py")}
    wrong = {
        str(path.relative_to(PACKAGE.parent)): sorted(
            module
            for module in imported(path.read_text(encoding="utf-8"), package_of(path))
            if module == COMMANDS or module.startswith(COMMANDS + ".")
        )
        for path in modules()
        if path not in above
    }
    wrong = {path: modules for path, modules in wrong.items() if modules}
    assert not wrong, f"move what these need out of runlens/commands/: {wrong}"


def test_the_guard_sees_every_way_of_importing_a_command():
    """An absolute import, a function-local one and a relative one, from a module of runlens.refresh."""
    source = "\n".join(
        [
            "from runlens.commands.usage import x",
            "import runlens.commands.watch",
            "def f():",
            "    from ..commands import build",
        ]
    )
    found = imported(source, "runlens.refresh")
    assert {"runlens.commands.usage", "runlens.commands.watch", "runlens.commands.build"} <= found


def test_no_module_beside_a_package_of_its_name():
    twins = sorted(
        str(path.relative_to(PACKAGE.parent))
        for path in modules()
        if path.stem != "__init__" and (path.parent / path.stem / "__init__.py").exists()
    )
    assert not twins, f"a module and a package of the same name: {twins}"
