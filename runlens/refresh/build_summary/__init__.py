"""The few lines `runlens build` ends with: what a person can use from the build (issue 21).

    runlens: built /path/to/runlens.duckdb from 8 log files below /path/to/logs
      lines: 34 accepted, 1 duplicate, 2 other events, 19 rejected (bad_ts 3, missing_run_id 3, ...)
        rejects are in fct_rejected_lines, the first at alpha/plain.jsonl:8
      runs: 6 analyzed, 2 excluded (failed 1: alpha-failed, incomplete 1: alpha-incomplete)
        the reason of each is fct_runs.exclusion_reason
      collections: 2 built (fixture/alpha, fixture/base)
      reports: not written yet: runlens report

Every figure is read from the marts by the queries beside this file (queries/*.sql) and the
report's read of agg_build_data_quality (runlens/report/data.py); nothing is counted here.
Shaping only: the counts with their nouns, the top reasons, where to look.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TypeVar

import duckdb

from runlens.plural import plural
from runlens.report.data import load_data_quality_totals
from runlens.report.rows import Row

QUERIES = Path(__file__).with_name("queries")
TOP = 3  # reasons shown per kind; the rest are counted
SHOWN_COLLECTIONS = 5
# what a reason for leaving a run out asks of the person reading it
EXCLUSION_HINTS = {
    "no_run_start": "no run_start line names the run: a misspelt event type or a lost first line "
    "(RUNLENS_EVENT_ALIASES maps another name to run_start)",
}
T = TypeVar("T")


@dataclass(frozen=True)
class RejectReason:
    reject_reason: str
    rejected_lines: int
    first_seen_at: str
    reasons: int


@dataclass(frozen=True)
class FirstRejectedLine:
    first_rejected_at: str


@dataclass(frozen=True)
class Runs:
    analyzed: int
    excluded: int


@dataclass(frozen=True)
class ExclusionReason:
    exclusion_reason: str
    runs: int
    first_run_id: str
    reasons: int


@dataclass(frozen=True)
class Traces:
    traces: int
    unreadable: int
    own_runs: int


@dataclass(frozen=True)
class Collection:
    collection: str


def fetch(connection: duckdb.DuckDBPyConnection, query: str, row_type: type[T]) -> list[T]:
    """Run queries/<query>.sql (parameter $top) and shape each row as row_type."""
    text = (QUERIES / f"{query}.sql").read_text(encoding="utf-8")
    cursor = connection.execute(text, {"top": TOP} if "$top" in text else {})
    columns = [description[0] for description in cursor.description]
    expected = [field.name for field in fields(row_type)]
    if columns != expected:
        raise RuntimeError(f"query {query}.sql returns {columns}, but {row_type.__name__} expects {expected}")
    return [row_type(*row) for row in cursor.fetchall()]


def and_more(shown: list[str], total: int, noun: str) -> str:
    more = total - len(shown)
    return ", ".join(shown) + (f", and {plural(more, 'more ' + noun, 'more ' + noun + 's')}" if more > 0 else "")


def line_figures(lines: Row, reasons: list[RejectReason], first: list[FirstRejectedLine]) -> list[str]:
    parts = [f"{lines.accepted} accepted"]
    if lines.duplicates:
        parts.append(plural(lines.duplicates, "duplicate"))
    parts.append(plural(lines.other_events, "other event"))
    rejected = f"{lines.rejected} rejected"
    if reasons:
        shown = [f"{reason.reject_reason} {reason.rejected_lines}" for reason in reasons]
        rejected += f" ({and_more(shown, reasons[0].reasons, 'reason')})"
    parts.append(rejected)
    text = [f"  lines: {', '.join(parts)}"]
    if first:
        text.append(f"    rejects are in fct_rejected_lines, the first at {first[0].first_rejected_at}")
    if lines.unreadable_files:
        text.append(f"    {plural(lines.unreadable_files, 'file')} could not be read: see agg_file_data_quality")
    return text


def run_figures(runs: Runs, reasons: list[ExclusionReason]) -> list[str]:
    text = f"  runs: {runs.analyzed} analyzed, {runs.excluded} excluded"
    if reasons:
        shown = [f"{reason.exclusion_reason} {reason.runs}: {reason.first_run_id}" for reason in reasons]
        text += f" ({and_more(shown, reasons[0].reasons, 'reason')})"
    lines = [text]
    if reasons:
        lines.append("    the reason of each is fct_runs.exclusion_reason")
    lines += [
        f"    {reason.exclusion_reason}: {EXCLUSION_HINTS[reason.exclusion_reason]}"
        for reason in reasons
        if reason.exclusion_reason in EXCLUSION_HINTS
    ]
    return lines


def source_figures(files: int, traces: Traces) -> str:
    """What the build read: its log files, and its profiler traces when there are any."""
    read = plural(files, "log file")
    if traces.traces:
        read += f" and {plural(traces.traces, 'profiler trace')}"
    return read


def trace_figures(traces: Traces) -> list[str]:
    """The traces' line, when there are any: the runs of their own they make, those not read."""
    if not traces.traces:
        return []
    text = f"  traces: {traces.traces} read, {plural(traces.own_runs, 'run')} of their own"
    if traces.unreadable:
        text += f", {traces.unreadable} could not be read (fct_traces.read_error)"
    return [text]


def collection_figures(collections: list[Collection]) -> str:
    names = [entry.collection for entry in collections[:SHOWN_COLLECTIONS]]
    listed = f" ({and_more(names, len(collections), 'collection')})" if names else ""
    return f"  collections: {len(collections)} built{listed}"


def summary(database: Path, raw: Path, reports: str) -> list[str]:
    """The build's summary lines, from the marts of database; reports says where the pages are,
    or the command that writes them."""
    with duckdb.connect(str(database), read_only=True) as connection:
        lines = load_data_quality_totals(connection)  # the report's query of agg_build_data_quality
        traces = fetch(connection, "traces", Traces)[0]
        text = [f"runlens: built {database} from {source_figures(lines.files, traces)} below {raw}"]
        text += line_figures(
            lines,
            fetch(connection, "reject_reasons", RejectReason),
            fetch(connection, "first_rejected_line", FirstRejectedLine),
        )
        text += run_figures(fetch(connection, "runs", Runs)[0], fetch(connection, "exclusion_reasons", ExclusionReason))
        text += trace_figures(traces)
        text.append(collection_figures(fetch(connection, "collections", Collection)))
    text.append(f"  reports: {reports}")
    return text
