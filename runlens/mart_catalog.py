"""The marts runlens declares, read from their YAML below models/marts: the one list that the
report (which marts it needs), the parity check and the refresh tests (which marts two builds must
agree on) use, instead of copies kept by hand."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

from runlens.refresh.project import project_dir

MARTS_DIR = project_dir() / "models" / "marts"
# libyaml's loader when PyYAML has it: the marts' YAML is some 7,000 lines
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def declared_marts(marts_dir: Path = MARTS_DIR) -> list[dict]:
    """Every mart's YAML entry below marts_dir, in the order of the files' paths."""
    models = []
    for models_yml in sorted(marts_dir.rglob("*.yml")):
        document = yaml.load(models_yml.read_text(encoding="utf-8"), Loader=SAFE_LOADER) or {}
        models.extend(document.get("models") or [])
    return models


def is_compared(model: dict) -> bool:
    """False for a mart whose meta says `compared: false` (it records the build, as dim_build does)."""
    return ((model.get("config") or {}).get("meta") or model.get("meta") or {}).get("compared", True)


def uncompared_columns(model: dict) -> tuple[str, ...]:
    """The columns whose meta says `compared: false`: they record the build that wrote a row (such
    as computed_at), so two builds of the same logs differ there and nowhere else."""
    return tuple(
        column["name"].lower()
        for column in model.get("columns") or []
        if not ((column.get("config") or {}).get("meta") or column.get("meta") or {}).get("compared", True)
    )


@functools.cache
def _uncompared_by_mart(marts_dir: Path) -> dict[str, tuple[str, ...]]:
    return {model["name"]: uncompared_columns(model) for model in declared_marts(marts_dir)}


def compared_query(name: str, marts_dir: Path = MARTS_DIR) -> str:
    """A query for the rows of mart `name` that two builds of the same logs must agree on (DuckDB):
    every column but those uncompared_columns names, in a fixed order."""
    left_out = ", ".join(_uncompared_by_mart(marts_dir)[name])
    columns = f"* exclude ({left_out})" if left_out else "*"
    return f"select {columns} from {name} order by all"


def mart_names(marts_dir: Path = MARTS_DIR) -> tuple[str, ...]:
    return tuple(model["name"] for model in declared_marts(marts_dir))


def collection_mart_names(marts_dir: Path = MARTS_DIR) -> tuple[str, ...]:
    """The marts with a `collection` column: what one collection's page is made of."""
    return tuple(
        model["name"]
        for model in declared_marts(marts_dir)
        if any(column.get("name") == "collection" for column in model.get("columns") or [])
    )


def compared_mart_names(marts_dir: Path = MARTS_DIR) -> tuple[str, ...]:
    return tuple(model["name"] for model in declared_marts(marts_dir) if is_compared(model))


def grain_of(model: dict) -> str:
    """The grain a mart's description states (`Grain: one row per run.`), without the word."""
    found = re.search(r"Grain: ([^.]*)\.", " ".join((model.get("description") or "").split()))
    return found.group(1) if found else ""
