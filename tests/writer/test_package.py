"""The documented ways to get and use the writer (issue 12).

- `pip install ./writer` into a fresh virtual environment installs runlens-writer and nothing
  else, and both the writer and the callbacks package import there.
- The one file `writer/runlens_writer.py`, copied alone, works without site-packages, on the
  oldest Python it supports when that Python is on the machine.
- writer/README.md's plain-loop example ("A plain PyTorch loop"; the README's until the README
  became a front door) runs as written and writes a log of the contract; the callback lines of the
  README ("Log your runs") and of writer/README.md ("Callbacks") name classes that exist.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.support.pipeline import REPO
from tests.support.writer_trainings import framework_module

WRITER = REPO / "writer"
SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text(encoding="utf-8"))
OLDEST_PYTHON = "python3.9"  # writer/pyproject.toml: requires-python = ">=3.9"

COPIED_FILE_SCRIPT = """
import sys
import runlens_writer
assert runlens_writer.__file__.startswith(sys.argv[1])
with runlens_writer.start_run("logs/copied.jsonl", collection="c", task="t", config={"nested": {"a": (1, 2)}}) as log:
    for _ in log.timed(range(3)):
        with log.section("train_step"):
            pass
    log.checkpoint(3)
    log.epoch_end(epoch=0, step=3)
"""


def readme_section(title: str, readme_path: Path = REPO / "README.md") -> str:
    readme = readme_path.read_text(encoding="utf-8")
    start = readme.index(f"## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start:] if end == -1 else readme[start:end]


def code_blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", markdown, flags=re.DOTALL)


def test_pip_install_of_the_writer_folder_pulls_in_nothing_else(tmp_path):
    source = shutil.copytree(WRITER, tmp_path / "writer", ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--disable-pip-version-check"]
        + [str(source)],
        check=True,
        capture_output=True,
    )
    listing = (
        "import importlib.metadata as metadata, runlens_writer, runlens_callbacks; "
        "print(sorted(dist.metadata['Name'] for dist in metadata.distributions()))"
    )
    installed = subprocess.run([str(python), "-c", listing], check=True, capture_output=True, text=True).stdout
    assert installed.strip() == "['runlens-writer']"


def interpreter(python: str) -> str | None:
    """`python` on PATH, or in pyenv's versions folder (its PATH shims may not select it)."""
    version = python.removeprefix("python") if python.startswith("python3.") else None
    pyenv = sorted(map(str, Path.home().glob(f".pyenv/versions/{version}.*/bin/python"))) if version else []
    candidates = [shutil.which(python), *pyenv]
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    return None


@pytest.mark.parametrize("python", [sys.executable, OLDEST_PYTHON])
def test_the_copied_file_alone_writes_a_valid_log(tmp_path, python):
    interpreter_path = interpreter(python)
    if interpreter_path is None:
        pytest.skip(f"{python} is not on this machine")
    shutil.copy2(WRITER / "runlens_writer.py", tmp_path / "runlens_writer.py")
    # -S: no site-packages, only the standard library and the copied file
    subprocess.run([interpreter_path, "-S", "-c", COPIED_FILE_SCRIPT, str(tmp_path)], cwd=tmp_path, check=True)
    events = [json.loads(line) for line in (tmp_path / "logs" / "copied.jsonl").read_text().splitlines()]
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for event in events:
        validator.validate(event)
    kinds = [event["event"] for event in events]
    assert kinds == ["run_start", "checkpoint", "profile", "epoch_end", "profile", "run_end"]
    assert events[0]["config"] == {"nested": {"a": [1, 2]}}
    assert set(events[-2]["sections"]) == {"data_loading", "train_step"}


def test_the_readme_plain_loop_example_runs_as_written(tmp_path, monkeypatch):
    framework_module("torch")
    section = readme_section("A plain PyTorch loop", WRITER / "README.md")
    (example,) = [block for block in code_blocks(section, "python") if "start_run" in block]
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "writer/README.md (A plain PyTorch loop)", "exec"), {"__name__": "readme_example"})
    events = [json.loads(line) for line in (tmp_path / "logs" / "run-1.jsonl").read_text().splitlines()]
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for event in events:
        validator.validate(event)
    assert [event["step"] for event in events if event["event"] == "checkpoint"] == [4, 8]
    assert [event["epoch"] for event in events if event["event"] == "epoch_end"] == [0, 1]
    assert (events[0]["config"], events[-1]["status"]) == ({"lr": 0.01, "model": {"layers": [8, 1]}}, "completed")
    assert set(events[-2]["sections"]) == {"data_loading", "train_step", "eval", "checkpoint_save"}


@pytest.mark.parametrize(
    ("readme_path", "title"), [(REPO / "README.md", "Log your runs"), (WRITER / "README.md", "Callbacks")]
)
def test_the_readme_callback_lines_name_classes_that_exist(readme_path, title):
    section = readme_section(title, readme_path)
    (callbacks,) = [block for block in code_blocks(section, "python") if "callbacks=" in block]
    imports = re.findall(r"from (runlens_callbacks\.\w+) import (\w+)", callbacks)
    assert len(imports) == 3
    for module, name in imports:
        source = (WRITER / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        classes = {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)}
        assert name in classes and f"{name}(" in callbacks
