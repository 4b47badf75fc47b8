"""The report computes no figure: its generic reads (report/data.py) and its queries select from
marts, and the dbt exposure for the report names exactly the marts they read."""

from __future__ import annotations

import json
import re

import yaml

from runlens.mart_catalog import mart_names
from runlens.report import data
from tests.support.pipeline import REPO

QUERIES = REPO / "runlens" / "report" / "queries"
EXPOSURES = REPO / "models" / "marts" / "_report__exposures.yml"
# what a metric rule needs and a query that only selects does not
RULE_WORDS = re.compile(
    r"\b(count|sum|avg|min|max|median|quantile\w*|percentile\w*|greatest|least|list|array_agg|string_agg)\s*\("
    r"|\bover\s*\(|\bcase\b|\bgroup\s+by\b|\bhaving\b|\bfilter\s*\(",
    re.IGNORECASE,
)


def query_texts() -> dict[str, str]:
    """Each query's SQL without its comments, and the SQL of each generic read."""
    texts = {
        path.name: re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8")) for path in sorted(QUERIES.glob("*.sql"))
    }
    reads = {**{f"profile:{k}": v for k, v in data.PROFILE_READS.items()}, **data.INDEX_READS}
    return texts | {name: read.sql() for name, read in reads.items()}


def marts_read() -> set[str]:
    return {
        name.lower()
        for text in query_texts().values()
        for name in re.findall(r"\b(?:from|join)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.IGNORECASE)
    }


def test_queries_hold_no_metric_rule():
    offending = {name: RULE_WORDS.findall(text) for name, text in query_texts().items() if RULE_WORDS.search(text)}
    assert offending == {}


def test_queries_read_marts_only():
    assert marts_read() <= set(mart_names())


def test_the_reports_exposure_names_the_marts_its_queries_read():
    exposure = yaml.safe_load(EXPOSURES.read_text(encoding="utf-8"))["exposures"][0]
    named = {re.fullmatch(r"ref\('(\w+)'\)", ref).group(1) for ref in exposure["depends_on"]}
    assert named == marts_read()


def test_the_rule_check_catches_a_rule():
    """The check above can fail: a query with an aggregate or a window is caught."""
    assert RULE_WORDS.search("select max(mean_seconds) over () from agg_task_runtime")
    assert RULE_WORDS.search("select count(*) as runs from fct_runs group by collection")
    assert not RULE_WORDS.search("select mean_wall_seconds / 3600 as mean_wall_hours from agg_task_runtime")


def test_the_timeline_reads_the_latest_runs_of_its_collection_only(sample_db):
    """queries/run_segments.sql gives the collection's latest runs by their first run_start (as many
    as asked: data.SHOWN_TIMELINE_RUNS on a page), in start order, each with how many runs the
    collection has; worked out here from the sample's live sweep's files."""
    from datetime import datetime

    from runlens.report.rows import read_query

    folder = REPO / "data" / "sample" / "from-entangled-v2__continuous-v4-live"
    first_starts: dict[str, datetime] = {}
    for path in folder.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            if event.get("event") == "run_start":
                started = datetime.fromisoformat(event["ts"].replace("Z", "+00:00"))
                first_starts[event["run_id"]] = min(started, first_starts.get(event["run_id"], started))
    latest = sorted(first_starts, key=lambda run_id: first_starts[run_id])[-3:]

    rows = read_query(sample_db, "run_segments", collection="from-entangled-v2/continuous-v4-live", shown_runs=3)

    assert list(dict.fromkeys(row.run_id for row in rows)) == latest
    assert {row.collection_runs for row in rows} == {len(first_starts)}
    assert data.QUERY_PARAMETERS["segments"] == {"shown_runs": data.SHOWN_TIMELINE_RUNS}
