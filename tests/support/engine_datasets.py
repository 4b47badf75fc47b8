"""The datasets the engine tests put in one raw folder (the bundled sample, the faulty fixture, the
generated runs with ranks, the goodput, timeline and utilization fixtures, the profiler traces), and
the kind of project copy they build in."""

from __future__ import annotations

from tests.support.pipeline import FAULTY, REPO, SAMPLE, Project

RANKS = REPO / "tests" / "generated" / "ranks"
GOODPUT = REPO / "tests" / "generated" / "goodput"
TIMELINE = REPO / "tests" / "generated" / "timeline"
UTILIZATION = REPO / "tests" / "generated" / "utilization"
TRACES = REPO / "tests" / "generated" / "traces"  # tests/support/traces_fixture.py
DATASETS = {
    "sample": SAMPLE,
    "faulty": FAULTY,
    "ranks": RANKS,
    "goodput": GOODPUT,
    "timeline": TIMELINE,
    "utilization": UTILIZATION,
    "traces": TRACES,
}
ENGINES_PROJECT = Project()
