"""The dbt project as a whole: documented, deterministic, and its JSON Schema agrees with what the
pipeline accepts. (Its one-line errors on user mistakes: tests/command/test_first_errors.py.)"""

import gzip
import json

import duckdb
import jsonschema

from runlens.mart_catalog import compared_query
from tests.support.pipeline import DATABASE, FAULTY, PROJECT, REPO, build, copy_database, project_copies, run_dbt
from tests.support.prebuilt import Built, Prebuilds, prebuilt

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())


@prebuilt()
def faulty_docs(builds: Prebuilds) -> tuple[dict, dict]:
    """`dbt docs generate` over a copy of the faulty fixture's database: (manifest, catalog)."""
    faulty_build = builds.result("faulty_build")
    database = copy_database(faulty_build.database, builds.mktemp("docs"))
    with project_copies().checkout(PROJECT) as project:
        result = run_dbt(project, faulty_build.raw, database, "docs", "generate")
        assert result.returncode == 0, result.stdout[-4000:]
        # the dbt worker's session writes to project/target, or to a private target-* folder when
        # another worker's session of this copy holds that one (runlens.refresh.dbt_session): the newest
        # catalog is the one just generated
        catalogs = sorted(project.glob("target*/catalog.json"), key=lambda path: path.stat().st_mtime_ns)
        assert catalogs, f"dbt docs generate wrote no catalog.json below {project}"
        target = catalogs[-1].parent
        return json.loads((target / "manifest.json").read_text()), json.loads((target / "catalog.json").read_text())


def test_docs_describe_every_model_and_column(faulty_docs):
    manifest, catalog = faulty_docs
    missing = []
    for unique_id, node in manifest["nodes"].items():
        if node["resource_type"] != "model":
            continue
        if not node["description"].strip():
            missing.append(unique_id)
        for column in catalog["nodes"][unique_id]["columns"]:
            if not node["columns"].get(column, {}).get("description", "").strip():
                missing.append(f"{unique_id}.{column}")
    assert missing == []


@prebuilt()
def faulty_built_again(builds: Prebuilds) -> Built:
    """A second build of the faulty fixture's folder, into a database of its own."""
    raw = builds.result("faulty_build").raw
    database = builds.mktemp("faulty_again") / DATABASE
    build(PROJECT, raw, database)
    return Built(raw, database)


def test_building_twice_gives_identical_tables(faulty_build, faulty_built_again):
    tables = ["fct_events", "fct_rejected_lines", "fct_runs", "fct_run_intervals", "agg_collection_runtime"]
    snapshots = []
    for built in (faulty_build, faulty_built_again):
        with duckdb.connect(str(built.database), read_only=True) as connection:
            snapshots.append({t: connection.sql(compared_query(t)).fetchall() for t in tables})
    assert snapshots[0] == snapshots[1]


def test_other_files_in_the_raw_folder_are_ignored(faulty_build, faulty_db):
    """The faulty fixture's folder holds notes.txt and the fixture's own expected.json besides its logs."""
    assert (faulty_build.raw / "notes.txt").exists() and (faulty_build.raw / "expected.json").exists()
    files = {row[0] for row in faulty_db.sql("select file_path from agg_file_data_quality").fetchall()}
    assert "notes.txt" not in files and "expected.json" not in files and "alpha/plain.jsonl" in files


def schema_accepts(line: str) -> bool:
    try:
        jsonschema.validate(json.loads(line), SCHEMA)
    except (jsonschema.ValidationError, ValueError):
        return False
    return True


def test_schema_agrees_with_the_pipeline(faulty_db):
    """Every line the pipeline accepts (or keeps as an other event) validates; every line it rejects
    after parsing does not, but for a likely typo of an event type, which the schema cannot tell."""
    lines = {}
    for path in FAULTY.rglob("*.jsonl*"):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        for number, line in enumerate(data.split(b"\n"), 1):
            lines[(path.relative_to(FAULTY).as_posix(), number)] = line.decode("utf-8", "replace").rstrip("\r")
    outcomes = faulty_db.sql(
        "select file_path, line_number, reject_reason from stg_log_lines"
        " where line_number > 0 and not is_blank"
        " and (reject_reason is null or reject_reason not in ('invalid_utf8', 'invalid_json'))"
        " and resembles_event_type is null"
    ).fetchall()
    assert len(outcomes) > 40
    disagreements = [
        (lines[(path, number)], reason)
        for path, number, reason in outcomes
        if schema_accepts(lines[(path, number)].lstrip("\ufeff")) != (reason is None)
    ]
    assert disagreements == []
