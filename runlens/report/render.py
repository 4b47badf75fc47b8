"""Render every collection's profile and the index from the marts into a folder of Markdown.

Gather (report.data) -> decide sentences (report.rules) -> lay out (templates/, StrictUndefined)
-> write atomically (report.files). Nothing here computes a figure. Marts that hold no run (a build
of a folder with no logs) still get an index: it says so, names the database it read and how to
point the build at logs.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import duckdb
import jinja2

from runlens.mart_catalog import mart_names
from runlens.plural import noun
from runlens.report import rules
from runlens.report.chart import epoch_duration_png, mean_wall_by_task_png, position_comparison_png
from runlens.report.data import (
    CollectionSummary,
    LiveCollection,
    load_build,
    load_collections,
    load_data_quality,
    load_live_collections,
    load_profile,
    load_regressions,
    load_version_chains,
)
from runlens.report.files import safe_path, write_atomic
from runlens.report.markdown import (
    escape_code,
    escape_text,
    fmt_count,
    fmt_decimal,
    fmt_hours,
    fmt_minutes,
    fmt_percent,
    fmt_ratio,
    fmt_ratio_2,
    fmt_signed_hours,
    fmt_signed_minutes,
    fmt_signed_seconds,
    fmt_time,
    fmt_zscore,
    unique_slugs,
)
from runlens.report.timeline import timeline_png

TEMPLATES = Path(__file__).with_name("templates")
# every mart declared below models/marts: a database that lacks one was built by another version
REQUIRED_MARTS = mart_names()
CHART_NAME = "mean_wall_by_task.png"
EPOCH_CHART_NAME = "epoch_durations.png"
POSITION_CHART_NAME = "windows_against_baseline.png"
TIMELINE_NAME = "timeline.png"
SAFE_URL = re.compile(r"^https?://[^\s()<>\[\]`|\"']+$")
SOURCE_WORDS = {
    "event_log": "event-log wall time (run_start to run_end)",
    "profiler": "profiler-measured in-process wall time",
    "mixed": "a mix of event-log and profiler wall time",
}
# what each kind of interval usually holds (def_interval_kinds in models/marts/epochs/_epochs__docs.md)
KIND_WORDS = {
    "run_start -> checkpoint": "start-up and the first training stretch (or training resumed after a restart)",
    "run_start -> epoch_end": "start-up and a whole first epoch without a save",
    "run_start -> run_end": "a run without checkpoints or epoch ends",
    "checkpoint -> checkpoint": "training between two saves",
    "checkpoint -> epoch_end": "the rest of an epoch after a save",
    "checkpoint -> run_end": "the final tail after the last save",
    "epoch_end -> checkpoint": "after an epoch end up to the next save: validation and saving where the framework "
    "validates, then saves",
    "epoch_end -> epoch_end": "a whole epoch without a save",
    "epoch_end -> run_end": "the final tail after the last epoch end",
    "downtime": "downtime before a restart",
}
PART_WORDS = {
    "opening_block": "opening block (run_start to the first marker)",
    "later_windows": "later pre-epoch windows",
    "final_tail": "final tail (final epoch end to run_end)",
    "other": "other (after the last marker, or unmarked)",
}
REASON_WORDS = {
    "failed": "failed",
    "incomplete": "incomplete (no run_end, no profiler wall time)",
    "clock_skew": "clock skew (run_end before run_start)",
    "no_run_start": "without run_start",
}


class ReportError(Exception):
    """A user mistake, reported as one line that says what to do."""


@dataclass(frozen=True)
class IndexEntry:
    summary: CollectionSummary
    href: str
    live: LiveCollection | None


def link(label: str, url: str | None) -> str:
    """A Markdown link for a plain http(s) URL; anything else is shown as escaped text."""
    if url and SAFE_URL.match(url):
        return f"[{escape_text(label)}]({url})"
    return f"{escape_text(label)}: {escape_code(url or '', table=False)}"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters.update(
        text=escape_text,
        code=escape_code,
        link=link,
        count=fmt_count,
        noun=noun,
        hours=fmt_hours,
        minutes=fmt_minutes,
        percent=fmt_percent,
        ratio=fmt_ratio,
        ratio_2=fmt_ratio_2,
        signed_hours=fmt_signed_hours,
        signed_seconds=fmt_signed_seconds,
        signed_minutes=fmt_signed_minutes,
        zscore=fmt_zscore,
        part_name=lambda part: PART_WORDS.get(part, escape_text(part)),
        kind_holds=lambda kind: KIND_WORDS.get(kind, "n/a"),
        time=fmt_time,
        decimal=fmt_decimal,
        source=lambda code: SOURCE_WORDS.get(code, "n/a") if code else "n/a",
        reason=lambda code: REASON_WORDS.get(code, escape_text(code)),
    )
    return env


def open_marts(db_path: Path) -> duckdb.DuckDBPyConnection:
    if not db_path.is_file():
        raise ReportError(f"no database at {db_path}: run `make sample` (or `dbt build`) first, or pass --db")
    try:
        connection = duckdb.connect(str(db_path), read_only=True)
    except duckdb.Error as error:
        first_line = str(error).splitlines()[0]
        raise ReportError(f"cannot open {db_path} ({first_line}): wait for the running build to finish") from None
    present = {row[0] for row in connection.execute("select table_name from information_schema.tables").fetchall()}
    missing = [mart for mart in REQUIRED_MARTS if mart not in present]
    if missing:
        connection.close()
        raise ReportError(f"{db_path} has no runlens marts ({', '.join(missing)} missing): run `dbt build` first")
    return connection


def render_profile(env, connection, summary: CollectionSummary, folder: Path) -> Path:
    profile = load_profile(connection, summary.collection)
    findings = rules.evaluate(profile)
    chart = epoch_chart = position_chart = None
    if profile.tasks:
        write_atomic(folder / CHART_NAME, mean_wall_by_task_png(profile.tasks))
        chart = CHART_NAME
    if findings.many_epochs and profile.epoch_positions:
        tasks = [task.task for task in profile.task_epochs]
        write_atomic(folder / EPOCH_CHART_NAME, epoch_duration_png(profile.epoch_positions, tasks))
        epoch_chart = EPOCH_CHART_NAME
    if profile.difference_split_possible and profile.position_comparisons:
        write_atomic(folder / POSITION_CHART_NAME, position_comparison_png(profile.position_comparisons))
        position_chart = POSITION_CHART_NAME
    timeline = None
    if profile.segments:
        as_of = profile.live.as_of_at if profile.live is not None and profile.live.is_live else None
        write_atomic(folder / TIMELINE_NAME, timeline_png(profile.segments, as_of))
        timeline = TIMELINE_NAME
    text = env.get_template("profile.md.j2").render(
        profile=profile,
        findings=findings,
        chart=chart,
        epoch_chart=epoch_chart,
        position_chart=position_chart,
        timeline=timeline,
    )
    page = folder / "profile.md"
    write_atomic(page, text)
    return page


def render_reports(
    db_path: Path, out_dir: Path, collection: str | None = None, only: Collection[str] | None = None
) -> list[Path]:
    """Write one profile per collection (or the one named) and, for all collections, index.md;
    with `only`, the profiles of those collections alone beside the index (runlens watch)."""
    connection = open_marts(db_path)
    try:
        summaries = load_collections(connection)
        slugs = unique_slugs(summary.collection for summary in summaries)
        chosen = [
            summary
            for summary in summaries
            if collection in (None, summary.collection) and (only is None or summary.collection in only)
        ]
        if collection is not None and not chosen:
            known = ", ".join(summary.collection for summary in summaries) or "none"
            raise ReportError(f"no collection named {collection!r} in {db_path} (known: {known})")
        env = environment()
        written = [
            render_profile(env, connection, summary, safe_path(out_dir, slugs[summary.collection]))
            for summary in chosen
        ]
        if collection is None:
            live = {entry.collection: entry for entry in load_live_collections(connection)}
            entries = [
                IndexEntry(summary, f"{slugs[summary.collection]}/profile.md", live.get(summary.collection))
                for summary in summaries
            ]
            no_runs = None if entries else rules.no_runs(load_data_quality(connection))
            page = env.get_template("index.md.j2").render(
                entries=entries,
                no_runs=no_runs,
                database=str(db_path),
                build=load_build(connection),
                chains=load_version_chains(connection),
                regressions=load_regressions(connection),
            )
            index = out_dir / "index.md"
            write_atomic(index, page)
            written.append(index)
        return written
    finally:
        connection.close()
