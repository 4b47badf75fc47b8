"""The models' conventions (models/README.md), enforced: the naming rule, the `Grain:` line in every
model's header comment and in every mart's YAML description, and `select * from final` at the end
of every model. A model whose body is one macro call (a rollup its siblings share:
`runlens.goodput_rollup`, `runlens.utilization_rollup`, ...) is the one other shape: the macro holds
the import CTEs and the `final`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pipeline import REPO

MODELS = REPO / "models"
# models/README.md, "Naming a mart": the word after the kind is the grain
KINDS = ("fct", "agg", "cmp", "dim")
GRAINS = ("build", "collection", "task", "run", "file")
# the tables of the things themselves, one row each, named by the thing in the plural
THINGS = {
    "fct_runs",
    "fct_events",
    "fct_other_events",
    "fct_rejected_lines",
    "fct_duplicate_lines",
    "fct_traces",
    "dim_collections",
}
ONE_MACRO = re.compile(r"^\{\{\s*runlens\.\w+\(.*\)\s*\}\}$", re.S)


def model_files() -> list[Path]:
    return sorted(MODELS.rglob("*.sql"))


def layer_of(path: Path) -> str:
    return path.relative_to(MODELS).parts[0]


def mart_name_problem(name: str) -> str | None:
    if name in THINGS:
        return None
    kind, _, rest = name.partition("_")
    if kind not in KINDS:
        return f"starts with {kind}_, not one of {', '.join(k + '_' for k in KINDS)}"
    grain = rest.split("_", 1)[0]
    if grain not in GRAINS:
        return f"its grain word {grain!r} is none of {', '.join(GRAINS)} (nor is it a thing's table, THINGS)"
    return None


@pytest.mark.parametrize("path", model_files(), ids=lambda path: path.stem)
def test_model_is_named_by_its_layer_and_grain(path):
    layer, name = layer_of(path), path.stem
    if layer == "staging":
        assert name.startswith("stg_"), name
    elif layer == "intermediate":
        assert re.fullmatch(r"int_[a-z]+_[a-z0-9_]+", name), name
    else:
        assert layer == "marts", path
        problem = mart_name_problem(name)
        assert problem is None, f"{name}: {problem}"


@pytest.mark.parametrize("path", model_files(), ids=lambda path: path.stem)
def test_model_header_says_its_grain_and_its_sql_ends_in_final(path):
    text = path.read_text(encoding="utf-8")
    header = text.split("\nwith\n", 1)[0] if "\nwith\n" in text else text
    assert "Grain: one row" in " ".join(line.lstrip("- ") for line in header.splitlines()), (
        f"{path.relative_to(REPO)}: its header comment has no `Grain: one row ...`"
    )
    body = re.sub(r"^(--[^\n]*\n|\{#.*?#\}\n?|\{%-?\s*set\b.*?%\}\n?)*", "", text, flags=re.S).strip()
    assert body.endswith("select * from final") or ONE_MACRO.match(body), (
        f"{path.relative_to(REPO)}: ends neither in `select * from final` nor is one macro call"
    )


def test_every_mart_description_states_its_grain():
    missing = []
    for document in MODELS.joinpath("marts").rglob("_*__models.yml"):
        for model in yaml.safe_load(document.read_text(encoding="utf-8")).get("models", []):
            if "Grain: one row" not in " ".join(model.get("description", "").split()):
                missing.append(model["name"])
    assert not missing, missing


def test_the_rules_catch_what_they_should():
    """The rules themselves, on names and texts that break them (so the tests above can fail)."""
    assert mart_name_problem("fct_run_intervals") is None and mart_name_problem("fct_runs") is None
    assert "grain word 'runs'" in mart_name_problem("agg_runs_by_task")
    assert "starts with run_" in mart_name_problem("run_stats")
    assert ONE_MACRO.match("{{ runlens.goodput_rollup(['collection', 'task']) }}")
    assert not ONE_MACRO.match("select 1 {{ runlens.x() }}")
