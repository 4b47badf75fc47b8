"""The tests import one way: what tests share is the package tests/support/, imported by its full name
(`from tests.support.pipeline import build`), a script by its full name (`from scripts.engines.parity
import compare`), the writer as the installed-like modules of writer/; never `from conftest`, another
test file, or a bare helper or script name, which would resolve only through an extra import root
(`import pipeline` once meant tests/helpers/pipeline.py beside the folder of tests tests/pipeline/).
conftest.py holds fixtures and hooks only. CONTRIBUTING.md ("Tests") says the same for people."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
SCRIPTS = REPO / "scripts"
# writer/ is the writer's own distribution (its own pyproject.toml): its modules import as installed
IMPORT_ROOTS = [".", "writer"]


def python_files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)


def bare_names() -> set[str]:
    """Every name a bare import of a test's helper, a test, conftest or a script would use: what the
    old import roots (tests/, tests/helpers/, scripts/) held at their top, and every test module."""
    names = {"conftest", "helpers", "support"}
    for folder in (TESTS, TESTS / "support", SCRIPTS):
        for entry in folder.iterdir():
            if entry.suffix == ".py" or (entry.is_dir() and any(entry.glob("*.py"))):
                names.add(entry.stem)
    names |= {path.stem for path in python_files(TESTS) if path.stem.startswith("test_")}
    return names - {"__init__", "tests", "scripts"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in path."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def test_pytest_has_two_import_roots_the_checkout_and_the_writer():
    """One root for tests.*, scripts.* and runlens, one for the writer; tests/, its helpers and scripts/
    are no roots of their own."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert settings["tool"]["pytest"]["ini_options"]["pythonpath"] == IMPORT_ROOTS


def test_every_folder_of_tests_is_a_package():
    """pytest then imports tests/pipeline/test_x.py as tests.pipeline.test_x with the checkout as its
    only root, and puts no folder of tests on sys.path (where tests/pipeline/ would shadow a name)."""
    folders = {path.parent for path in python_files(TESTS)} | {SCRIPTS}
    missing = sorted(str(folder.relative_to(REPO)) for folder in folders if not (folder / "__init__.py").exists())
    assert not missing, f"folders of Python files without __init__.py: {missing}"


def test_tests_and_scripts_import_helpers_and_scripts_by_their_full_names():
    bare = bare_names()
    wrong = []
    for path in python_files(TESTS) + python_files(SCRIPTS):
        for line, module in imported_modules(path):
            top = module.split(".")[0]
            if top in bare:
                wrong.append(f"{path.relative_to(REPO)}:{line}: import {module}")
            elif module.startswith("tests.") and not module.startswith("tests.support"):
                wrong.append(
                    f"{path.relative_to(REPO)}:{line}: import {module} (a test file; share it from tests.support)"
                )
    assert not wrong, "import as tests.support.<module> or scripts.<module>:\n" + "\n".join(wrong)


def test_the_guard_knows_the_names_that_once_had_roots_of_their_own():
    """The names of the old roots' modules are caught: a helper, a script, a package of scripts,
    conftest and a test module."""
    assert {"pipeline", "prebuilt", "oracle", "bench", "generate_sample", "engines", "benchmark"} <= bare_names()
    assert {"conftest", "test_wandb_importer"} <= bare_names()
    assert not {"runlens", "runlens_writer", "pytest", "tests", "scripts"} & bare_names()


def test_no_test_changes_sys_path():
    """A test that puts a folder on sys.path makes a second import root; tests.support and scripts.*
    need none."""
    wrong = []
    for path in python_files(TESTS):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "path"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                wrong.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not wrong, f"sys.path used in: {wrong}"


def is_fixture(decorator: ast.expr) -> bool:
    return ast.unparse(decorator).startswith(("pytest.fixture", "prebuilt("))


def test_conftest_holds_only_fixtures_and_hooks():
    """Everything at the top of tests/conftest.py is an import, a fixture (pytest.fixture or a
    @prebuilt() build) or a pytest_* hook: a constant or class a test needs lives in tests/support/."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    others = []
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.FunctionDef) and (
            node.name.startswith("pytest_") or any(map(is_fixture, node.decorator_list))
        ):
            continue
        others.append(f"line {node.lineno}: {ast.unparse(node).splitlines()[0]}")
    assert not others, f"tests/conftest.py holds more than fixtures and hooks: {others}"
