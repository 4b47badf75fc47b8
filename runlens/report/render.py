"""Render every collection's profile and the index from the marts into a folder of Markdown.

Gather (report.data) -> decide sentences and sections (report.rules) -> shape tables
(report.tables) -> lay out (templates/, StrictUndefined) -> write atomically (report.files).
Nothing here computes a figure. Marts that hold no run (a build of a folder with no logs) still get
an index: it says so, names the database it read and how to point the build at logs. Pages of
collections no longer in the database are removed.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

import duckdb
import jinja2

from runlens.mart_catalog import mart_names
from runlens.plural import noun
from runlens.refresh.stopping import undone_on_exit
from runlens.report import rules, sentences, tables, units
from runlens.report.chart import (
    arrival_spread_png,
    epoch_duration_png,
    goodput_by_task_png,
    mean_wall_by_task_png,
    position_comparison_png,
)
from runlens.report.data import IndexData, load_index, load_profile
from runlens.report.files import (
    remove_partial_files,
    remove_stale_pages,
    remove_unwritten,
    safe_path,
    write_atomic,
    write_if_changed,
)
from runlens.report.markdown import SLUG, escape_code, escape_text, unique_slugs
from runlens.report.rows import Row, StaleDatabase
from runlens.report.step_charts import step_split_png
from runlens.report.timeline import timeline_png
from runlens.report.utilization_charts import task_utilization_png, utilization_by_kind_png, utilization_timeline_png
from runlens.report.words import KIND_WORDS, REASON_WORDS, SOURCE_WORDS, time
from runlens.usage import index_commands, no_database, no_marts

TEMPLATES = Path(__file__).with_name("templates")
# every mart declared below models/marts: a database that lacks one was built by another version
REQUIRED_MARTS = mart_names()
CHART_NAME = "mean_wall_by_task.png"
EPOCH_CHART_NAME = "epoch_durations.png"
POSITION_CHART_NAME = "windows_against_baseline.png"
TIMELINE_NAME = "timeline.png"
ARRIVAL_CHART_NAME = "rank_arrival_spread.png"
GOODPUT_CHART_NAME = "goodput_by_task.png"
UTILIZATION_CHART_NAME = "gpu_utilization_by_kind.png"
UTILIZATION_TIMELINE_NAME = "gpu_utilization_of_the_longest_run.png"
# one per task of the GPU utilization section, <task> its slug (markdown.unique_slugs)
TASK_UTILIZATION_CHART_NAME = "gpu_utilization_of_task_<task>.png"
STEP_CHART_NAME = "inside_a_step.png"
PAGE_NAME = "profile.md"
# what a profile's folder holds: a folder of only these files is runlens's to remove
PAGE_FILES = frozenset(
    {
        PAGE_NAME,
        CHART_NAME,
        EPOCH_CHART_NAME,
        POSITION_CHART_NAME,
        TIMELINE_NAME,
        ARRIVAL_CHART_NAME,
        UTILIZATION_CHART_NAME,
        UTILIZATION_TIMELINE_NAME,
        GOODPUT_CHART_NAME,
        STEP_CHART_NAME,
    }
)
TASK_CHART_PREFIX, TASK_CHART_SUFFIX = TASK_UTILIZATION_CHART_NAME.split("<task>")


def is_page_file(name: str) -> bool:
    """Whether a file of a profile's folder is one a profile writes (runlens's to remove)."""
    if name in PAGE_FILES:
        return True
    if not (name.startswith(TASK_CHART_PREFIX) and name.endswith(TASK_CHART_SUFFIX)):
        return False
    return SLUG.fullmatch(name[len(TASK_CHART_PREFIX) : -len(TASK_CHART_SUFFIX)]) is not None


SAFE_URL = re.compile(r"^https?://[^\s()<>\[\]`|\"']+$")


class ReportError(Exception):
    """A user mistake, reported as one line that says what to do."""


def link(label: str, url: str | None) -> str:
    """A Markdown link for a plain http(s) URL; anything else is shown as escaped text."""
    if url and SAFE_URL.match(url):
        return f"[{escape_text(label)}]({url})"
    return f"{escape_text(label)}: {escape_code(url or '', table=False)}"


def tidy(markdown: str) -> str:
    """One blank line between blocks, however the template's conditional sections fell."""
    return re.sub(r"\n{3,}", "\n\n", markdown).rstrip("\n") + "\n"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 run`, `1,234 runs`: the count as units.count writes it, with its noun."""
    return f"{units.count(count)} {noun(count, singular, plural_form)}"


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment, made once per process: `runlens watch` renders at every refresh,
    and compiling the templates again each time cost it 0.4 s (Jinja still reloads a template
    whose file changed)."""
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
        count=units.count,
        median_count=units.median_count,
        plural=plural,
        duration=units.duration,
        durations=lambda values: units.durations(*values),
        signed_duration=units.signed_duration,
        percent=units.percent,
        gpu_hours=lambda values: units.gpu_hour_texts(values)[0],
        speedup=units.speedup,
        multiple=units.multiple,
        decimal=units.decimal,
        setting=units.setting,
        setting_percent=units.setting_percent,
        setting_duration=units.setting_duration,
        time=time,
        kind_holds=lambda kind: KIND_WORDS.get(kind, "n/a"),
        source=lambda code: SOURCE_WORDS.get(code, "n/a") if code else "n/a",
        reason=lambda code: REASON_WORDS.get(code, escape_text(code)),
    )
    return env


def open_marts(db_path: Path) -> duckdb.DuckDBPyConnection:
    if not db_path.is_file():
        raise ReportError(no_database(db_path))
    try:
        connection = duckdb.connect(str(db_path), read_only=True)
    except duckdb.Error as error:
        first_line = str(error).splitlines()[0]
        raise ReportError(f"cannot open {db_path} ({first_line}): wait for the running build to finish") from None
    present = {row[0] for row in connection.execute("select table_name from information_schema.tables").fetchall()}
    missing = [mart for mart in REQUIRED_MARTS if mart not in present]
    if missing:
        connection.close()
        raise ReportError(no_marts(db_path, ", ".join(missing)))
    return connection


# what this process last drew at each chart's path: a digest of the chart and its figures
DRAWN: dict[str, str] = {}


def draw(path: Path, draw_png, *figures) -> None:
    """Write a chart, drawing it only when its figures differ from those this process last drew
    there (`runlens watch` renders every page at each refresh; drawing is most of a page's cost)."""
    digest = hashlib.sha256(repr((draw_png.__name__, figures)).encode("utf-8")).hexdigest()
    if DRAWN.get(str(path)) == digest and path.exists():
        return
    write_atomic(path, draw_png(*figures))
    DRAWN[str(path)] = digest


def charts(profile, findings, folder: Path) -> dict:
    """Write the profile's charts beside it; the names of those it has (None for the others; the
    tasks' GPU utilization charts by task). A chart is drawn only where it compares at least two
    things: two tasks, two epoch positions, two runs on the timeline, two kinds of interval."""
    written: dict = {
        "chart": None,
        "epoch_chart": None,
        "position_chart": None,
        "timeline": None,
        "arrival_chart": None,
        "goodput_chart": None,
        "utilization_chart": None,
        "utilization_timeline": None,
        "step_chart": None,
        "task_utilization_charts": {},
    }
    if len(profile.shown_tasks) >= 2:
        draw(folder / CHART_NAME, mean_wall_by_task_png, profile.shown_tasks, tables.page_wall_times(profile))
        written["chart"] = CHART_NAME
    if findings.many_epochs and len({position.epoch_index for position in profile.epoch_positions}) >= 2:
        tasks = [task.task for task in profile.task_epochs]
        draw(folder / EPOCH_CHART_NAME, epoch_duration_png, profile.epoch_positions, tasks)
        written["epoch_chart"] = EPOCH_CHART_NAME
    if profile.difference_split_possible and profile.has_shared_positions:
        draw(folder / POSITION_CHART_NAME, position_comparison_png, profile.shown_positions)
        written["position_chart"] = POSITION_CHART_NAME
    if len({segment.run_id for segment in profile.segments}) >= 2:
        as_of = profile.live.as_of_at if profile.live is not None and profile.live.is_live else None
        draw(folder / TIMELINE_NAME, timeline_png, profile.segments, as_of)
        written["timeline"] = TIMELINE_NAME
    if any(arrival.arrival_spread_seconds > 0 for arrival in profile.rank_arrivals):
        draw(folder / ARRIVAL_CHART_NAME, arrival_spread_png, profile.rank_arrivals)
        written["arrival_chart"] = ARRIVAL_CHART_NAME
    if len({row.task for row in profile.task_goodput}) >= 2:
        shown = [bucket.bucket for bucket in profile.goodput if bucket.seconds > 0]
        draw(folder / GOODPUT_CHART_NAME, goodput_by_task_png, profile.task_goodput, shown)
        written["goodput_chart"] = GOODPUT_CHART_NAME
    if len(profile.utilization_kinds) >= 2:
        draw(folder / UTILIZATION_CHART_NAME, utilization_by_kind_png, profile.utilization_kinds)
        written["utilization_chart"] = UTILIZATION_CHART_NAME
    if sum(interval.mean_gpu_utilization_pct is not None for interval in profile.utilization_timeline) >= 2:
        draw(folder / UTILIZATION_TIMELINE_NAME, utilization_timeline_png, profile.utilization_timeline)
        written["utilization_timeline"] = UTILIZATION_TIMELINE_NAME
    slugs = unique_slugs(task.task for task in profile.utilization_tasks)
    for task in profile.shown_utilization_tasks:
        kinds, parts = profile.task_utilization(task.task)
        if len(kinds) >= 2 or len(parts) >= 2:
            written["task_utilization_charts"][task.task] = TASK_UTILIZATION_CHART_NAME.replace(
                "<task>", slugs[task.task]
            )
            draw(folder / written["task_utilization_charts"][task.task], task_utilization_png, task.task, kinds, parts)
    if profile.step_parts:
        draw(folder / STEP_CHART_NAME, step_split_png, profile.step_tasks, profile.step_parts)
        written["step_chart"] = STEP_CHART_NAME
    return written


def render_profile(env, connection, summary: Row, folder: Path, index: IndexData) -> tuple[Path, bool]:
    """The collection's page and charts; whether the page's text changed."""
    profile = load_profile(connection, summary.collection, index.wall_seconds)
    findings = rules.evaluate(profile)
    written_charts = charts(profile, findings, folder)
    page_tables = tables.profile_tables(profile)
    text = env.get_template("profile.md.j2").render(
        profile=profile,
        findings=findings,
        tables=page_tables,
        answer=sentences.answer(profile, findings, page_tables),
        goodput_unmeasured=sentences.goodput_unmeasured(findings),
        unmapped_sections=sentences.unmapped_sections(findings),
        between_markers=sentences.between_markers(profile, findings),
        limits=sentences.limits(profile, findings),
        not_shown=sentences.not_shown(findings),
        first_epoch=sentences.first_epoch(findings),
        live_status=sentences.live_status(profile, findings) if findings.live_sweep else None,
        eta_range=sentences.eta_range(findings),
        task_ends=sentences.task_ends(profile, findings, page_tables),
        saving_unmeasured=sentences.SAVING_UNMEASURED,
        coinciding_markers=sentences.coinciding_markers(findings),
        gpu_hours=sentences.gpu_hours(profile, findings) if profile.span else None,
        step_tasks=sentences.step_tasks(findings),
        **written_charts,
    )
    page = folder / PAGE_NAME
    page_changed = write_if_changed(page, tidy(text))
    names = {PAGE_NAME, *written_charts["task_utilization_charts"].values()}
    names |= {name for name in written_charts.values() if isinstance(name, str)}
    remove_unwritten(folder, names, is_page_file)
    return page, page_changed


def render_index(env, index: IndexData, db_path: Path, slugs: dict[str, str], out_dir: Path) -> Path:
    hrefs = {collection: f"{slug}/{PAGE_NAME}" for collection, slug in slugs.items()}
    titles = {entry.collection: entry.title for entry in index.collections}
    page = env.get_template("index.md.j2").render(
        index=index,
        no_runs=None if index.collections else sentences.no_runs(rules.no_runs(index.data_quality), str(db_path)),
        database=str(db_path),
        build_commands=index_commands(db_path, out_dir),
        tables={
            "collections": tables.collections_table(index, hrefs),
            "regressions": tables.regressions_table(index, titles),
            "live": tables.live_collections_table(index, hrefs, titles),
            "unstarted": tables.unstarted_table(index),
            "straggling_ranks": tables.straggling_ranks_table(index, hrefs),
            "reject_reasons": tables.reject_reasons_table(index.reject_reasons),
        },
    )
    path = out_dir / "index.md"
    write_atomic(path, tidy(page))
    return path


def render_reports(
    db_path: Path, out_dir: Path, collection: str | None = None, changed: list[str] | None = None
) -> list[Path]:
    """Write one profile per collection (or the one named) and, for all collections, index.md;
    remove the pages of collections the database no longer holds. A page whose text is what its
    file holds is left as it is; `changed` gets the collections whose page changed (runlens watch)."""
    connection = open_marts(db_path)
    try:
        with undone_on_exit(lambda: remove_partial_files(out_dir)):
            index = load_index(connection)
            summaries = index.collections
            slugs = unique_slugs(summary.collection for summary in summaries)
            chosen = [summary for summary in summaries if collection in (None, summary.collection)]
            if collection is not None and not chosen:
                known = ", ".join(summary.collection for summary in summaries) or "none"
                raise ReportError(f"no collection named {collection!r} in {db_path} (known: {known})")
            env = environment()
            written = []
            for summary in chosen:
                folder = safe_path(out_dir, slugs[summary.collection])
                page, page_changed = render_profile(env, connection, summary, folder, index)
                written.append(page)
                if page_changed and changed is not None:
                    changed.append(summary.collection)
            if collection is None:
                written.append(render_index(env, index, db_path, slugs, out_dir))
                remove_stale_pages(out_dir, set(slugs.values()), is_page_file)
            return written
    except StaleDatabase as error:
        raise ReportError(f"{db_path}: {error}") from None
    finally:
        connection.close()
