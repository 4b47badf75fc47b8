"""The datasets the engine tests put in one raw folder (the bundled sample, the faulty fixture, the
generated runs with ranks, the goodput, timeline and utilization fixtures), and the kind of project copy
they build in."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline import FAULTY, REPO, SAMPLE, Project

RANKS = REPO / "tests" / "generated" / "ranks"
GOODPUT = REPO / "tests" / "generated" / "goodput"
TIMELINE = REPO / "tests" / "generated" / "timeline"
UTILIZATION = REPO / "tests" / "generated" / "utilization"
DATASETS = {
    "sample": SAMPLE,
    "faulty": FAULTY,
    "ranks": RANKS,
    "goodput": GOODPUT,
    "timeline": TIMELINE,
    "utilization": UTILIZATION,
}
ENGINES_PROJECT = Project()

# Profiler traces are read on DuckDB only (input_contract.md, "Profiler traces": the PostgreSQL and
# Spark readers create the trace tables empty), so the engines compare the datasets without the
# sample's traces.
TRACES = shutil.ignore_patterns("*.pt.trace.json", "*.pt.trace.json.gz")


def copy_without_traces(source: Path, target: Path) -> Path:
    """A copy of the raw folder source at target, every file but the profiler traces."""
    shutil.copytree(source, target, ignore=TRACES)
    return target
