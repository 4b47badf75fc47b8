"""Where the dbt project is, and where dbt may write.

An installed runlens carries the dbt project inside the package (`runlens/project/`: the wheel's
force-include in pyproject.toml); a source checkout (an editable install, the tests) has it at the
repository root, beside the package. `RUNLENS_PROJECT_DIR` names another copy of the project to
run instead (one with its own models, say). dbt writes its parse state, compiled SQL and log (target/,
logs/) into a cache folder of the user's, never into the package (site-packages may be read-only,
and is shared by every user of it): `$RUNLENS_CACHE_DIR`, else `$XDG_CACHE_HOME/runlens`, else
`~/.cache/runlens`, one folder per project location and version; dbt's recorded plans, keyed by
the project's content, sit beside them in `plans/` (docs/internals.md, "Plans").
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from runlens import __version__

PACKAGE = Path(__file__).resolve().parents[1]  # runlens/, this module being runlens/refresh/project.py
BUNDLED = PACKAGE / "project"
CACHE_VARIABLE = "RUNLENS_CACHE_DIR"
PROJECT_VARIABLE = "RUNLENS_PROJECT_DIR"


class ProjectNotFound(RuntimeError):
    """Neither the package nor the folder above it holds the dbt project."""


def project_dir() -> Path:
    """The dbt project's folder: RUNLENS_PROJECT_DIR, else the package's own copy, else the source
    checkout's root."""
    configured = os.environ.get(PROJECT_VARIABLE)
    if configured:
        chosen = Path(configured).expanduser().resolve()
        if not (chosen / "dbt_project.yml").is_file():
            raise ProjectNotFound(
                f"{PROJECT_VARIABLE}={configured} holds no dbt_project.yml: "
                "point it at a copy of the runlens dbt project, or unset it"
            )
        return chosen
    return installed_project_dir()


def installed_project_dir() -> Path:
    """The project runlens was installed with: the package's own copy, else the checkout's root."""
    for candidate in (BUNDLED, PACKAGE.parent):
        if (candidate / "dbt_project.yml").is_file():
            return candidate
    from runlens.usage import install_command  # the message's command, as runlens was installed

    raise ProjectNotFound(
        f"the runlens package at {PACKAGE} holds no dbt project: reinstall runlens: {install_command()}"
    )


def from_checkout() -> bool:
    """Whether runlens runs from a source checkout (an editable install, the tests): the package's
    parent is the repository, with its pyproject.toml and dbt project; installed from a wheel, the
    package sits in site-packages and carries its own copy of the project."""
    root = PACKAGE.parent
    return not (BUNDLED / "dbt_project.yml").is_file() and all(
        (root / name).is_file() for name in ("pyproject.toml", "dbt_project.yml")
    )


def sample_dir() -> Path:
    """The bundled sample logs (data/sample), what a build reads when it is given no logs."""
    return installed_project_dir() / "data" / "sample"


def cache_root() -> Path:
    configured = os.environ.get(CACHE_VARIABLE)
    if configured:
        return Path(configured).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser().resolve() / "runlens"


def cache_dir(project: Path | None = None) -> Path:
    """The folder dbt writes for this project (made if missing): one per project location and
    runlens version, so two installs or two checkouts never share dbt's parse state."""
    project = (project or project_dir()).resolve()
    digest = hashlib.sha256(str(project).encode()).hexdigest()[:12]
    folder = cache_root() / f"{__version__}-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
