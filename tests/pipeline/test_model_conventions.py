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

from tests.support.pipeline import REPO

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


# models/README.md, "How incremental models work": the four things of a per-run mart
CONFIG = re.compile(r"\{\{ config\(\*\*runlens\.incremental_config\(\s*'(\w+)'")
IMPORT_CTE = re.compile(r"\n(\w+) as (?:\{\{[^}]*\}\} )?\(\n\s*select \* from \{\{ ref\('(\w+)'\) \}\}(.*?)\n\)", re.S)
DEPENDS_ON = "-- depends_on: {{ ref('int_run_versions') }}"
COMPUTED_AT = "{{ runlens.build_started_at() }} as computed_at"


def per_run_problems(text: str, yaml_columns: set[str]) -> list[str]:
    """What a per-run mart's SQL (text) and YAML columns lack of the four things."""
    problems = []
    config = CONFIG.search(text)
    if config is None or config.group(1) not in ("run", "live_run"):
        problems.append("no config(**runlens.incremental_config('run' or 'live_run'))")
    if not text.startswith(DEPENDS_ON):
        problems.append(f"does not start with `{DEPENDS_ON}`")
    for name, _ref, rest in IMPORT_CTE.findall(text):
        if "is_run_to_compute" not in rest:
            problems.append(f"import CTE {name} reads every run (no runlens.is_run_to_compute)")
    if COMPUTED_AT not in text or "computed_at" not in yaml_columns:
        problems.append("no computed_at column (in its SQL and its YAML)")
    return problems


def yaml_columns_of() -> dict[str, set[str]]:
    columns = {}
    for document in MODELS.rglob("_*__models.yml"):
        for model in yaml.safe_load(document.read_text(encoding="utf-8")).get("models", []):
            columns[model["name"]] = {column["name"] for column in model.get("columns") or []}
    return columns


def per_run_marts() -> list[Path]:
    """The marts of one row per run (or per something of a run) that carry computed_at: per-run
    marts, which must be incremental by run; and every mart whose config says so."""
    found = []
    for path in sorted(MODELS.joinpath("marts").rglob("*.sql")):
        text = path.read_text(encoding="utf-8")
        config = CONFIG.search(text)
        by_run = config is not None and config.group(1) in ("run", "live_run")
        by_group = config is not None and config.group(1) in ("task", "collection")  # a run's peers: the group's
        if by_run or (path.stem.startswith(("fct_run_", "fct_runs")) and COMPUTED_AT in text and not by_group):
            found.append(path)
    return found


@pytest.mark.parametrize("path", per_run_marts(), ids=lambda path: path.stem)
def test_per_run_mart_has_its_four_things(path):
    problems = per_run_problems(path.read_text(encoding="utf-8"), yaml_columns_of().get(path.stem, set()))
    assert not problems, f"{path.relative_to(REPO)}: " + "; ".join(problems)


def test_the_four_things_are_each_missed_when_missing():
    """Each of the four, taken out of a real per-run mart (fct_run_epochs), is found missing."""
    text = (MODELS / "marts" / "epochs" / "fct_run_epochs.sql").read_text(encoding="utf-8")
    columns = yaml_columns_of()["fct_run_epochs"]
    assert per_run_problems(text, columns) == []
    assert "no config" in per_run_problems(text.replace("incremental_config('run')", "other('run')"), columns)[0]
    assert "does not start" in per_run_problems(text.replace(DEPENDS_ON, "-- nothing"), columns)[0]
    unfiltered = re.sub(r"\n\s*where \{\{ runlens\.is_run_to_compute\('run_id'\) \}\}", "", text, count=1)
    assert "reads every run" in per_run_problems(unfiltered, columns)[0]
    assert "no computed_at" in per_run_problems(text, columns - {"computed_at"})[0]
