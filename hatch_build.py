"""The package's dependencies are requirements.txt's exact pins, its extra `importers` those of
requirements-importers.txt (one list each: the Makefile, CI and `pip install .` install the same
versions). Hatchling calls this hook when it builds runlens
(pyproject.toml, [tool.hatch.metadata.hooks.custom])."""

from __future__ import annotations

from pathlib import Path

from hatchling.metadata.plugin.interface import MetadataHookInterface


def pinned_requirements(path: Path, base: str | None = None) -> list[str]:
    """The requirement lines of a requirements file: comments and blank lines left out, and the
    line `-r <base>` (an extra's file includes the core's); any other option (-r, -c, -e) is
    refused, since a package's metadata cannot say it."""
    requirements = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or (base is not None and line.split() == ["-r", base]):
            continue
        if line.startswith("-"):
            raise ValueError(f"{path}: {line!r} is no requirement (the package's dependencies are exact pins)")
        requirements.append(line)
    return requirements


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        root = Path(self.root)
        metadata["dependencies"] = pinned_requirements(root / "requirements.txt")
        # `pip install runlens[importers]`: TensorBoard's reader for `runlens import` / `profile`
        metadata["optional-dependencies"] = {
            "importers": pinned_requirements(root / "requirements-importers.txt", base="requirements.txt")
        }
