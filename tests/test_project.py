"""The dbt project as a whole: documented, deterministic, clear about user mistakes, and its JSON
Schema agrees with what the pipeline accepts."""

import gzip
import json
import shutil

import duckdb
import jsonschema
import pytest
from conftest import FAULTY
from pipeline import REPO, build, copy_project, run_dbt

SCHEMA = json.loads((REPO / "models" / "staging" / "runlens_event.schema.json").read_text())


@pytest.fixture(scope="module")
def documented_project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("docs_project"), FAULTY / "collections.csv")
    database = project / "docs.duckdb"
    build(project, FAULTY, database)
    result = run_dbt(project, FAULTY, database, "docs", "generate")
    assert result.returncode == 0, result.stdout[-4000:]
    return project


def test_docs_describe_every_model_and_column(documented_project):
    manifest = json.loads((documented_project / "target" / "manifest.json").read_text())
    catalog = json.loads((documented_project / "target" / "catalog.json").read_text())
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


def test_building_twice_gives_identical_tables(tmp_path):
    project = copy_project(tmp_path / "project", FAULTY / "collections.csv")
    tables = ["fct_events", "fct_rejected_lines", "fct_runs", "fct_run_intervals", "agg_collection_runtime"]
    snapshots = []
    for attempt in range(2):
        database = tmp_path / f"build{attempt}.duckdb"
        build(project, FAULTY, database)
        with duckdb.connect(str(database), read_only=True) as connection:
            snapshots.append({t: connection.sql(f"select * from {t} order by all").fetchall() for t in tables})
    assert snapshots[0] == snapshots[1]


def test_missing_raw_folder_says_what_to_do(tmp_path):
    project = copy_project(tmp_path / "project")
    result = run_dbt(project, tmp_path / "no-such-folder", tmp_path / "x.duckdb", "build")
    assert result.returncode != 0
    assert "set RUNLENS_RAW_DIR to a folder of *.jsonl logs" in result.stdout


def test_other_files_in_the_raw_folder_are_ignored(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(FAULTY, raw)
    (raw / "notes.txt").write_text("not a log\n")
    project = copy_project(tmp_path / "project", FAULTY / "collections.csv")
    build(project, raw, tmp_path / "x.duckdb")
    with duckdb.connect(str(tmp_path / "x.duckdb"), read_only=True) as connection:
        files = {row[0] for row in connection.sql("select file_path from agg_file_data_quality").fetchall()}
    assert "notes.txt" not in files and "expected.json" not in files and "alpha/plain.jsonl" in files


def schema_accepts(line: str) -> bool:
    try:
        jsonschema.validate(json.loads(line), SCHEMA)
    except (jsonschema.ValidationError, ValueError):
        return False
    return True


def test_schema_agrees_with_the_pipeline(faulty_db):
    """Every line the pipeline accepts validates; every line it rejects after parsing does not."""
    lines = {}
    for path in FAULTY.rglob("*.jsonl*"):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        for number, line in enumerate(data.split(b"\n"), 1):
            lines[(path.relative_to(FAULTY).as_posix(), number)] = line.decode("utf-8", "replace").rstrip("\r")
    outcomes = faulty_db.sql(
        "select file_path, line_number, reject_reason from stg_log_lines"
        " where line_number > 0 and not is_blank"
        " and (reject_reason is null or reject_reason not in ('invalid_utf8', 'invalid_json'))"
    ).fetchall()
    assert len(outcomes) > 40
    disagreements = [
        (lines[(path, number)], reason)
        for path, number, reason in outcomes
        if schema_accepts(lines[(path, number)].lstrip("\ufeff")) != (reason is None)
    ]
    assert disagreements == []
